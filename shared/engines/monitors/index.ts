export { CheckModesSchema,   MonitorInputSchema, MonitorNameSchema, MonitorSchema, isSampled,  monitorApplies, sampleKey } from './monitor.ts';
export type { Monitor,  MonitorInput, PlanSubject } from './monitor.ts';
export { DOC_KINDS, SimulationDocSchema, UserCheckDocSchema, addStoredChecks, docsVersion, getSimulation, listMonitors, listUserChecks, putSimulation } from './docs.ts';
export type {   UserCheckDoc } from './docs.ts';
export { loadMonitorsFile } from './monitors-file.ts';
export { describeNoChecks, planUnit, scoringPlan, withMonitor } from './scoring-plan.ts';
export type {   ScoringDefaults, ScoringPlan,  } from './scoring-plan.ts';
