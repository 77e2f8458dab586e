export { BUILTIN_PRICE_VERSION,  } from './builtin-prices.ts';
export { builtinPriceTable, loadPriceTable, parsePriceFile,  } from './price-file.ts';
export { callCostUsd, createPriceTable, modelKey } from './price-table.ts';
export type {  PricedTable, PriceTable } from './price-table.ts';
