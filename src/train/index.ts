/** Public API of the trainer (HRPO, GRPO, REINFORCE for the construction policy). See docs/train.md. */
export {
  ALGOS,
  PRESETS,
  TrainConfigSchema,
  parseTrainConfig,
  trainConfig,
  type Algo,
  type ConfigResult,
  type PresetName,
  type TrainConfig,
  type TrainConfigInput,
} from './config.ts';
export { actionRewardsOf, advantages, rewardOf, type Advantages, type Scored } from './advantages.ts';
export { ppoObjective, type ObjectiveInput, type ObjectiveResult, type ObjectiveStats } from './objective.ts';
