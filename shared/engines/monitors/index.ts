export { CheckModesSchema, MonitorBudgetSchema, MonitorFiltersSchema, MonitorInputSchema, MonitorNameSchema, MonitorSchema, isSampled, matchesFilters, monitorApplies, sampleKey } from './monitor.ts';
export type { Monitor, MonitorFilters, MonitorInput, PlanSubject } from './monitor.ts';
export { DOC_KINDS, SimulationDocSchema, UserCheckDocSchema, addStoredChecks, docsVersion, getSimulation, listMonitors, listUserChecks, putSimulation } from './docs.ts';
export type { InvalidDoc, SimulationDoc, UserCheckDoc } from './docs.ts';
export { loadMonitorsFile } from './monitors-file.ts';
export { describeNoChecks, planUnit, scoringPlan, withMonitor } from './scoring-plan.ts';
export type { NoCheckReason, PlannedCheck, ScoringDefaults, ScoringPlan, UnitPlan } from './scoring-plan.ts';
