/** A small orchestrator run for the share-link tests (services and slice). */
import { orchestratorTrainConfig } from '../../train/orchestrator.ts';
import type { OrchRecordInput } from '../../train/orchestrator-record.ts';

export function metricsRow(iteration: number): OrchRecordInput['history'][number] {
  return {
    iteration,
    samples: 8,
    reward: 0.25 + iteration / 7,
    rewardStd: 0.1,
    accuracy: 0.5 + iteration / 100,
    tokensPerTask: 900 - iteration,
    designTokens: 41,
    forcedShare: 0.62,
    agents: 2.5,
    depth: 2,
    validity: 1,
    lowDomDelegated: iteration % 2 ? null : 0.75,
    kl: 0.001 * iteration,
    entropy: 1.3,
    clipFraction: 0.04,
    loss: -0.02,
    gradNorm: 0.7,
    updates: 1,
    trainedTokens: 120,
    rolloutTokensPerSec: 1234.5,
    updateTokensPerSec: 456.25,
  };
}

export function runInput(
  iterations = 3,
  text = 'think: two solvers in parallel, then a merge',
): OrchRecordInput {
  return {
    model: {
      id: 'baton-orchestrator-tiny',
      name: 'baton-orchestrator-tiny',
      params: 230_412,
      positions: 512,
      promptFormat: 'tiny',
    },
    backend: { backend: 'cpu', reason: 'the probe found no faster backend' },
    config: orchestratorTrainConfig({ tasksPerIteration: 1, groupSize: 2, lr: 0.05, seed: 3 }),
    iteration: iterations,
    history: Array.from({ length: iterations }, (_, i) => metricsRow(i + 1)),
    evaluation: {
      iteration: iterations,
      tasks: 2,
      before: {
        n: 4,
        accuracy: 0.5,
        interval: [0.15, 0.85],
        tokens: 800,
        agents: 1.5,
        designTokens: 40,
        forcedShare: 0.6,
        validity: 1,
        lowDomDelegated: 0.5,
      },
      after: {
        n: 4,
        accuracy: 0.75,
        interval: [0.3, 0.95],
        tokens: 750,
        agents: 2,
        designTokens: 42,
        forcedShare: 0.58,
        validity: 1,
        lowDomDelegated: 1,
      },
      accuracy: { n: 4, difference: 0.25, interval: [0, 0.5], onlyA: 0, onlyB: 1, reps: 2000 },
      tokens: { n: 4, difference: -50, interval: [-120, 10], onlyA: 0, onlyB: 0, reps: 2000 },
    },
    sampled: [
      {
        taskId: 'parallel-3-17',
        axis: 'parallel',
        value: 3,
        dom: 'high',
        text,
        design: {
          dom: 'high',
          agents: [
            { id: 'a1', type: 'CoTAgent', description: 'solve part one', input: '', params: {} },
            { id: 'a2', type: 'CoTAgent', description: 'merge', input: '${a1}', params: {} },
          ],
          edges: [{ from: 'a1', to: 'a2' }],
        },
        reward: 0.6,
        correct: true,
      },
      {
        taskId: 'depth-2-4',
        axis: 'depth',
        value: 2,
        dom: 'low',
        text: 'answer directly',
        design: null,
        reward: 0,
        correct: false,
      },
    ],
  };
}
