export { BUILTIN_PRICE_VERSION, BUILTIN_PRICES } from './builtin-prices.ts';
export { builtinPriceTable, loadPriceTable, parsePriceFile, PriceFileSchema } from './price-file.ts';
export { callCostUsd, createPriceTable, modelKey } from './price-table.ts';
export type { ModelPrice, PricedTable, PriceTable } from './price-table.ts';
