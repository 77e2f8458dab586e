export { acceptedMediaType } from './media-type.ts';
export { EMPTY_ADDRESS_LIST, canonicalAddress, createAddressMatcher, parseAddressList } from './address-list.ts';
export type { AddressList, AddressMatcher } from './address-list.ts';
export { forwardedClient } from './forwarded-client.ts';
;
export { checkOutboundTarget,  } from './outbound-target.ts';
export type { Lookup, OutboundPolicy,  } from './outbound-target.ts';
export { pinnedFetch } from './pinned-fetch.ts';
export type { PinnedRequest } from './pinned-fetch.ts';
