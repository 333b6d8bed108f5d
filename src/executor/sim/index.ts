export { simulatedBackend, type SimulatedBackendOptions } from './backend.ts';
export { COST_MODEL, ERROR_MODEL, SIM_MODEL, slipChance } from './model.ts';
export { knownValues, prepareTask, targetsOf, type SimTask } from './task.ts';
