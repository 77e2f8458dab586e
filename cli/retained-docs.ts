import { ALERT_DOC_KINDS } from '../shared/engines/alerts/index.ts';
import { DOC_KINDS as MONITOR_DOC_KINDS } from '../shared/engines/monitors/index.ts';
import { PROBLEM_DOC_KINDS } from '../shared/engines/problems/index.ts';
import { CHECK_TRY_DOC_KIND, DATASET_DOC_KIND, REVIEW_DOC_KINDS } from '../shared/engines/review/index.ts';

/**
 * The documents retention removes with the rows: every one that holds unit content or history —
 * alert history, problems' state changes (their units), people's reviews, dataset versions (units'
 * text and expected outputs), check tries and simulations (their dialogs). Rules, queues, monitors,
 * keys, problems and the miner's book are configuration or state, kept.
 */
export const RETAINED_DOC_KINDS: readonly string[] = [ALERT_DOC_KINDS.event, PROBLEM_DOC_KINDS.event, REVIEW_DOC_KINDS.review, DATASET_DOC_KIND, CHECK_TRY_DOC_KIND, MONITOR_DOC_KINDS.simulation];
