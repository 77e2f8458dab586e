export { acceptedMediaType } from './media-type.ts';
