import type { ConstructionStep, Trace } from '../../src/core/trace.ts';
import { agent, buildExample } from './builder.ts';

/**
 * The bundled gallery examples. Their content is written for Baton: each shows one structure a
 * user comes to inspect. Token counts and latencies are plausible values for a small hosted model,
 * not measurements, and the gallery says so in each summary.
 */

const SOLVER = 'You are a careful problem solver. Think step by step and put the final answer in \\boxed{}.';
const IGSM_Q =
  "The number of each Harbor Town's Lighthouse equals 4. The number of each Lighthouse's Lantern equals 3 more than each Harbor Town's Lighthouse. The number of each Mill Village's Granary equals 6. The number of each Granary's Sack equals 2 times each Mill Village's Granary. How many Lantern does Harbor Town have, plus how many Sack does Mill Village have?";

const parallel = buildExample({
  id: 'example-parallel-branches',
  title: 'Parallel branches: two independent sub-problems, then a merge',
  createdAt: '2026-11-20T09:12:00.000Z',
  task: {
    query: IGSM_Q,
    groundTruth: '100',
    source: { kind: 'masbench', axis: 'parallel', value: 2, taskId: 'parallel-2-demo' },
  },
  designer: { kind: 'manual' },
  design: {
    dom: 'high',
    thinking:
      'The question asks for two quantities that do not depend on each other (Harbor Town lanterns, Mill Village sacks). Solve them in parallel, check each one, then add them in a final agent.',
    agents: [
      agent(
        'lanterns',
        'CoTAgent',
        'Compute how many Lantern Harbor Town has.',
        'How many Lantern does Harbor Town have?',
      ),
      agent(
        'sacks',
        'SCAgent',
        'Compute how many Sack Mill Village has.',
        'How many Sack does Mill Village have?',
        {
          samples: 3,
        },
      ),
      agent(
        'check_lanterns',
        'CoTAgent',
        'Re-derive the lantern count and confirm it.',
        'Verify this result: ${lanterns}',
      ),
      agent(
        'total',
        'CoTAgent',
        'Add the two counts for the final answer.',
        'Lanterns: ${check_lanterns}. Sacks: ${sacks}. Give the sum.',
      ),
    ],
    edges: [
      { from: 'lanterns', to: 'check_lanterns' },
      { from: 'check_lanterns', to: 'total' },
      { from: 'sacks', to: 'total' },
    ],
  },
  runs: [
    {
      id: 'lanterns',
      input: 'How many Lantern does Harbor Town have?',
      steps: [
        {
          label: 'solve',
          system: SOLVER,
          user: 'How many Lantern does Harbor Town have?',
          output:
            'Each Harbor Town has $4$ Lighthouses and each Lighthouse has $4 + 3 = 7$ Lanterns.\n\nLanterns per Harbor Town $= 4 \\times 7 = 28$.\n\n$\\boxed{28}$',
          promptTokens: 212,
          completionTokens: 64,
          latencyMs: 1180,
        },
      ],
      output: '28',
    },
    {
      id: 'sacks',
      input: 'How many Sack does Mill Village have?',
      steps: [
        ...[0, 1, 2].map((i) => ({
          label: `sample ${i + 1}/3`,
          system: SOLVER,
          user: 'How many Sack does Mill Village have?',
          output:
            i === 1
              ? 'Granaries: $6$. Sacks per Granary: $2 \\times 6 = 12$. Total: $6 \\times 12 = \\boxed{72}$'
              : 'Mill Village has $6$ Granaries; each Granary has $2 \\times 6 = 12$ Sacks, so $6 \\cdot 12 = \\boxed{72}$.',
          promptTokens: 208,
          completionTokens: 71 + i * 9,
          latencyMs: 1320 + i * 140,
          parallel: i > 0,
        })),
        { kind: 'vote', note: 'Majority vote over 3 samples: 72 (3 votes).' },
      ],
      output: '72',
    },
    {
      id: 'check_lanterns',
      after: ['lanterns'],
      input: 'Verify this result: 28',
      steps: [
        {
          label: 'verify',
          system: SOLVER,
          user: 'Original task: (see question). Sub-task: Verify this result: 28',
          output:
            'Lighthouses per Harbor Town: 4. Lanterns per Lighthouse: 4 + 3 = 7. Total 4 × 7 = 28. The result holds.\n\n$\\boxed{28}$',
          promptTokens: 301,
          completionTokens: 52,
          latencyMs: 960,
        },
      ],
      output: '28',
    },
    {
      id: 'total',
      after: ['check_lanterns', 'sacks'],
      input: 'Lanterns: 28. Sacks: 72. Give the sum.',
      steps: [
        {
          label: 'combine',
          system: SOLVER,
          user: 'Original task: (see question). Sub-task: Lanterns: 28. Sacks: 72. Give the sum.',
          output: 'The two counts are independent: lanterns $28$, sacks $72$.\n\n$28 + 72 = \\boxed{100}$',
          promptTokens: 344,
          completionTokens: 48,
          latencyMs: 870,
        },
      ],
      output: '100',
    },
  ],
  finalAnswer: '100',
  answerAgent: 'total',
  correct: true,
  tags: ['parallel', 'self-consistency', 'masbench', 'correct'],
});

const debate = buildExample({
  id: 'example-debate',
  title: 'Debate: two roles argue a geometry problem over two rounds',
  createdAt: '2026-11-20T10:02:00.000Z',
  task: {
    query:
      'A right triangle has legs $a$ and $b$ with $a + b = 17$ and hypotenuse $13$. What is the area of the triangle?',
    groundTruth: '30',
    source: { kind: 'custom' },
  },
  designer: { kind: 'manual' },
  design: {
    dom: 'low',
    thinking:
      'A short problem where an algebraic and a geometric reading can cross-check each other: one debate.',
    agents: [
      agent('debate', 'DebateAgent', 'Algebraist and geometer argue, then a judge decides.', '', {
        debateRoles: ['Algebraist', 'Geometer'],
        maxRounds: 2,
      }),
    ],
    edges: [],
  },
  runs: [
    {
      id: 'debate',
      input: '',
      steps: [
        {
          label: 'round 1 · Algebraist',
          system: 'You are the Algebraist in a debate. Argue from equations. End with \\boxed{}.',
          user: 'A right triangle has legs a and b with a + b = 17 and hypotenuse 13. What is the area?',
          output:
            '$(a+b)^2 = a^2 + 2ab + b^2$, so $289 = 169 + 2ab$ and $ab = 60$. Area $= \\tfrac{ab}{2} = \\boxed{30}$.',
          promptTokens: 96,
          completionTokens: 58,
          latencyMs: 1040,
        },
        {
          label: 'round 1 · Geometer',
          system:
            'You are the Geometer in a debate. Argue from figures and known triangles. End with \\boxed{}.',
          user: 'A right triangle has legs a and b with a + b = 17 and hypotenuse 13. What is the area?',
          output:
            'The 5-12-13 triangle has $5 + 12 = 17$. Area $= \\tfrac12 \\cdot 5 \\cdot 12 = \\boxed{30}$.',
          promptTokens: 98,
          completionTokens: 41,
          latencyMs: 910,
          parallel: true,
        },
        {
          label: 'round 2 · Algebraist',
          system: 'You are the Algebraist in a debate. Argue from equations. End with \\boxed{}.',
          user: 'The Geometer said: the 5-12-13 triangle gives area 30. Reconsider and answer.',
          output: 'Agreed: $a, b$ are the roots of $x^2 - 17x + 60 = 0$, i.e. $5$ and $12$. $\\boxed{30}$',
          promptTokens: 171,
          completionTokens: 39,
          latencyMs: 820,
        },
        {
          label: 'round 2 · Geometer',
          system:
            'You are the Geometer in a debate. Argue from figures and known triangles. End with \\boxed{}.',
          user: 'The Algebraist said: ab = 60, so area 30. Reconsider and answer.',
          output: 'Both methods agree. $\\boxed{30}$',
          promptTokens: 165,
          completionTokens: 17,
          latencyMs: 640,
          parallel: true,
        },
        {
          label: 'final decision',
          system: 'You are the judge. Read the debate and give the final answer in \\boxed{}.',
          user: 'Algebraist: 30. Geometer: 30. Decide.',
          output: 'Both roles derive 30 by independent routes. Final answer: $\\boxed{30}$',
          promptTokens: 240,
          completionTokens: 22,
          latencyMs: 700,
        },
      ],
      output: '30',
    },
  ],
  finalAnswer: '30',
  answerAgent: 'debate',
  correct: true,
  tags: ['debate', 'low-dom', 'correct'],
});

const reflexion = buildExample({
  id: 'example-reflexion',
  title: 'Reflexion: a critic rejects twice, then accepts',
  createdAt: '2026-11-20T11:40:00.000Z',
  task: {
    query: 'How many positive integers less than $100$ are divisible by $3$ or $5$ but not by $15$?',
    groundTruth: '40',
    source: { kind: 'custom' },
  },
  designer: { kind: 'manual' },
  design: {
    dom: 'low',
    agents: [
      agent('reflect', 'ReflexionAgent', 'Answer, then revise under a critic until it accepts.', '', {
        maxRounds: 5,
      }),
    ],
    edges: [],
  },
  runs: [
    {
      id: 'reflect',
      input: '',
      steps: [
        {
          label: 'initial answer',
          system: SOLVER,
          user: 'How many positive integers less than 100 are divisible by 3 or 5 but not by 15?',
          output: 'Multiples of 3: 33. Multiples of 5: 19. Total $33 + 19 = \\boxed{52}$.',
          promptTokens: 84,
          completionTokens: 33,
          latencyMs: 780,
        },
        {
          label: 'critic round 1',
          system: 'You are a strict critic. Say ACCEPT or REJECT, then why.',
          user: 'Answer: 52. Check it.',
          output: 'REJECT. Multiples of 15 were counted twice and must also be excluded entirely.',
          promptTokens: 120,
          completionTokens: 24,
          latencyMs: 520,
        },
        { kind: 'verdict', note: 'Critic round 1: REJECT' },
        {
          label: 'revision 1',
          system: SOLVER,
          user: 'Critic: multiples of 15 were counted twice. Revise.',
          output: 'Inclusion–exclusion: $33 + 19 - 6 = 46$. $\\boxed{46}$',
          promptTokens: 160,
          completionTokens: 28,
          latencyMs: 640,
        },
        {
          label: 'critic round 2',
          system: 'You are a strict critic. Say ACCEPT or REJECT, then why.',
          user: 'Answer: 46. Check it.',
          output:
            'REJECT. 46 counts numbers divisible by 3 or 5; the task excludes those divisible by 15 too.',
          promptTokens: 150,
          completionTokens: 27,
          latencyMs: 560,
        },
        { kind: 'verdict', note: 'Critic round 2: REJECT' },
        {
          label: 'revision 2',
          system: SOLVER,
          user: 'Critic: also exclude the 6 multiples of 15. Revise.',
          output: '$46 - 6 = 40$. $\\boxed{40}$',
          promptTokens: 190,
          completionTokens: 14,
          latencyMs: 430,
        },
        {
          label: 'critic round 3',
          system: 'You are a strict critic. Say ACCEPT or REJECT, then why.',
          user: 'Answer: 40. Check it.',
          output: 'ACCEPT. $33 + 19 - 2 \\cdot 6 = 40$.',
          promptTokens: 150,
          completionTokens: 16,
          latencyMs: 410,
        },
        { kind: 'verdict', note: 'Critic round 3: ACCEPT — stopping.' },
      ],
      output: '40',
    },
  ],
  finalAnswer: '40',
  answerAgent: 'reflect',
  correct: true,
  tags: ['reflexion', 'low-dom', 'correct'],
});

const ceo = buildExample({
  id: 'example-mas-tts-discussion',
  title: 'MAS-TTS: a CEO steers recruited experts turn by turn',
  createdAt: '2026-11-21T08:30:00.000Z',
  task: {
    query: 'Find the remainder when $2^{100}$ is divided by $7$.',
    groundTruth: '2',
    source: { kind: 'custom' },
  },
  designer: { kind: 'manual' },
  design: {
    dom: 'low',
    agents: [
      agent(
        'discussion',
        'CEOAgent',
        'A CEO recruits a solver and a critic, steers two turns, then an evaluator answers.',
        '',
        {
          maxRounds: 4,
        },
      ),
    ],
    edges: [],
  },
  runs: [
    {
      id: 'discussion',
      input: '',
      steps: [
        {
          label: 'CEO turn 1',
          system:
            'You are the CEO of a problem-solving team. Reply with JSON: {"decision":"continue|stop","recruit":1-4,"direction":"…","token_budget":N}.',
          user: 'Task: Find the remainder when 2^100 is divided by 7.',
          output:
            '{"decision":"continue","recruit":2,"direction":"Use the cycle of powers of 2 mod 7; one solver, one critic.","token_budget":400}',
          promptTokens: 140,
          completionTokens: 38,
          latencyMs: 690,
        },
        {
          kind: 'ceo-decision',
          note: 'continue · recruit 2 (solver, critic) · budget 400 tokens · direction: cycle of 2^k mod 7',
        },
        {
          label: 'solver turn 1',
          system: 'You are the solver. Direction from the CEO: use the cycle of powers of 2 mod 7.',
          user: 'Find the remainder when 2^100 is divided by 7.',
          output:
            '$2^3 = 8 \\equiv 1 \\pmod 7$. $100 = 3 \\cdot 33 + 1$, so $2^{100} \\equiv 2 \\pmod 7$. $\\boxed{2}$',
          promptTokens: 130,
          completionTokens: 49,
          latencyMs: 880,
        },
        {
          label: 'critic turn 1',
          system: 'You are the critic. Agree or point out an error.',
          user: 'Solver: 2^3 ≡ 1, 100 = 3·33 + 1, remainder 2.',
          output: 'Agree: the cycle length is 3 and the exponent leaves remainder 1.',
          promptTokens: 150,
          completionTokens: 19,
          latencyMs: 470,
        },
        {
          label: 'CEO turn 2',
          system: 'You are the CEO of a problem-solving team. Reply with JSON.',
          user: 'Solver and critic agree on 2.',
          output: '{"decision":"stop","recruit":0,"direction":"Agreement reached.","token_budget":0}',
          promptTokens: 210,
          completionTokens: 25,
          latencyMs: 520,
        },
        { kind: 'ceo-decision', note: 'stop · solver and critic agree' },
        {
          label: 'evaluator',
          system: 'You are the evaluator. State the final answer in \\boxed{}.',
          user: 'Discussion transcript: solver 2, critic agrees.',
          output: 'Final answer: $\\boxed{2}$',
          promptTokens: 260,
          completionTokens: 10,
          latencyMs: 380,
        },
      ],
      output: '2',
    },
  ],
  finalAnswer: '2',
  answerAgent: 'discussion',
  correct: true,
  tags: ['mas-tts', 'ceo', 'discussion', 'correct'],
});

const failed = buildExample({
  id: 'example-failed-agent',
  title: 'A failed agent: its dependents get a placeholder and the run goes on',
  createdAt: '2026-11-21T13:15:00.000Z',
  task: {
    query: 'What is $17 \\times 24 + 3^5$?',
    groundTruth: '651',
    source: { kind: 'custom' },
  },
  designer: { kind: 'manual' },
  design: {
    dom: 'high',
    agents: [
      agent('product', 'CoTAgent', 'Compute 17 × 24.', 'Compute 17 × 24.'),
      agent('power', 'CoTAgent', 'Compute 3^5.', 'Compute 3^5.'),
      agent('sum', 'ReflexionAgent', 'Add the two parts and check.', 'Add ${product} and ${power}.', {
        maxRounds: 2,
      }),
    ],
    edges: [
      { from: 'product', to: 'sum' },
      { from: 'power', to: 'sum' },
    ],
  },
  runs: [
    {
      id: 'product',
      input: 'Compute 17 × 24.',
      steps: [
        {
          label: 'solve',
          system: SOLVER,
          user: 'Original task: What is 17 × 24 + 3^5? Sub-task: Compute 17 × 24.',
          output: '$17 \\times 24 = 408$. $\\boxed{408}$',
          promptTokens: 90,
          completionTokens: 18,
          latencyMs: 600,
        },
      ],
      output: '408',
    },
    {
      id: 'power',
      input: 'Compute 3^5.',
      steps: [
        {
          label: 'attempt 1',
          system: SOLVER,
          user: 'Original task: What is 17 × 24 + 3^5? Sub-task: Compute 3^5.',
          output: '',
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: 30000,
          error: 'timeout after 30 s',
        },
        {
          label: 'attempt 2',
          system: SOLVER,
          user: 'Original task: What is 17 × 24 + 3^5? Sub-task: Compute 3^5.',
          output: '',
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: 420,
          error: 'HTTP 503 Service Unavailable',
        },
      ],
      error: 'gave up after 2 attempts (timeout, then HTTP 503)',
    },
    {
      id: 'sum',
      after: ['product', 'power'],
      input: 'Add 408 and [power failed: gave up after 2 attempts (timeout, then HTTP 503)].',
      steps: [
        {
          label: 'initial answer',
          system: SOLVER,
          user: 'Original task: What is 17 × 24 + 3^5? Sub-task: Add 408 and [power failed: gave up after 2 attempts].',
          output:
            'The second input is missing, so compute it directly: $3^5 = 243$. Then $408 + 243 = 651$. $\\boxed{651}$',
          promptTokens: 150,
          completionTokens: 44,
          latencyMs: 820,
        },
        {
          label: 'critic round 1',
          system: 'You are a strict critic. Say ACCEPT or REJECT, then why.',
          user: 'Answer: 651. Check it.',
          output: 'ACCEPT. $408 + 243 = 651$.',
          promptTokens: 120,
          completionTokens: 12,
          latencyMs: 400,
        },
        { kind: 'verdict', note: 'Critic round 1: ACCEPT — stopping.' },
      ],
      output: '651',
    },
  ],
  finalAnswer: '651',
  answerAgent: 'sum',
  correct: true,
  tags: ['failure', 'placeholder', 'reflexion', 'correct'],
});

/** A MasHost construction, executed on the simulator: replay shows every policy step. */
const constructionSteps: ConstructionStep[] = [
  {
    index: 0,
    action: { kind: 'add', role: 'Decomposer', agentId: 'a1', agentType: 'CoTAgent', links: [] },
    roleDistribution: [
      { action: 'Decomposer', p: 0.46 },
      { action: 'Solver', p: 0.31 },
      { action: 'Verifier', p: 0.15 },
      { action: 'Debater', p: 0.08 },
      { action: 'DELETE', p: 0 },
      { action: 'EXIT', p: 0 },
    ],
    edgeProbabilities: [],
    logProb: Math.log(0.46),
    chooser: 'policy',
    intermediateAnswer: '9',
    intermediateCorrect: false,
    actionReward: 0,
  },
  {
    index: 1,
    action: { kind: 'add', role: 'Solver', agentId: 'a2', agentType: 'SCAgent', links: ['a1'] },
    roleDistribution: [
      { action: 'Decomposer', p: 0.12 },
      { action: 'Solver', p: 0.52 },
      { action: 'Verifier', p: 0.21 },
      { action: 'Debater', p: 0.09 },
      { action: 'DELETE', p: 0.03 },
      { action: 'EXIT', p: 0.03 },
    ],
    edgeProbabilities: [{ from: 'a1', p: 0.88 }],
    logProb: Math.log(0.52) + Math.log(0.88),
    chooser: 'policy',
    intermediateAnswer: '14',
    intermediateCorrect: true,
    actionReward: 1,
  },
  {
    index: 2,
    action: { kind: 'add', role: 'Verifier', agentId: 'a3', agentType: 'ReflexionAgent', links: ['a2'] },
    roleDistribution: [
      { action: 'Decomposer', p: 0.05 },
      { action: 'Solver', p: 0.18 },
      { action: 'Verifier', p: 0.44 },
      { action: 'Debater', p: 0.11 },
      { action: 'DELETE', p: 0.07 },
      { action: 'EXIT', p: 0.15 },
    ],
    edgeProbabilities: [
      { from: 'a1', p: 0.22 },
      { from: 'a2', p: 0.91 },
    ],
    logProb: Math.log(0.44) + Math.log(1 - 0.22) + Math.log(0.91),
    chooser: 'user',
    intermediateAnswer: '14',
    intermediateCorrect: true,
    actionReward: 0.5,
  },
  {
    index: 3,
    action: { kind: 'exit', summarizerId: 'final' },
    roleDistribution: [
      { action: 'Decomposer', p: 0.02 },
      { action: 'Solver', p: 0.06 },
      { action: 'Verifier', p: 0.09 },
      { action: 'Debater', p: 0.05 },
      { action: 'DELETE', p: 0.06 },
      { action: 'EXIT', p: 0.72 },
    ],
    edgeProbabilities: [],
    logProb: Math.log(0.72),
    chooser: 'policy',
    intermediateAnswer: '14',
    intermediateCorrect: true,
    actionReward: 0.25,
  },
];

const SIM = 'Simulated sub-agent (no LLM call): programmatic solver with an error model.';
const construction = buildExample({
  id: 'example-mashost-construction',
  title: 'MasHost construction: a policy adds a decomposer, a solver and a verifier (simulated run)',
  createdAt: '2026-11-21T16:45:00.000Z',
  task: {
    query:
      "The number of each River Farm's Barn equals 5. The number of each Barn's Goat equals 2 more than each River Farm's Barn. How many Goat does River Farm have, modulo 23?",
    groundTruth: '12',
    source: { kind: 'masbench', axis: 'depth', value: 2, taskId: 'depth-2-demo' },
    seed: 7,
  },
  designer: { kind: 'policy', checkpoint: 'prior-v1', backend: 'cpu', seed: 7 },
  construction: constructionSteps,
  backend: { kind: 'simulated', seed: 7, model: 'simulator-v1' },
  design: {
    dom: 'high',
    agents: [
      agent('a1', 'CoTAgent', 'Decomposer: split the question into sub-questions.', '', {}, 'Decomposer'),
      agent(
        'a2',
        'SCAgent',
        'Solver: answer each sub-question.',
        'Sub-questions: ${a1}',
        { samples: 5 },
        'Solver',
      ),
      agent('a3', 'ReflexionAgent', 'Verifier: check the solution.', 'Check: ${a2}', {}, 'Verifier'),
      agent(
        'final',
        'SummarizerAgent',
        'Summarise the intermediate answers into the final one.',
        'Answers so far: ${a1} | ${a2} | ${a3}',
      ),
    ],
    edges: [
      { from: 'a1', to: 'a2' },
      { from: 'a2', to: 'a3' },
      { from: 'a1', to: 'final' },
      { from: 'a2', to: 'final' },
      { from: 'a3', to: 'final' },
    ],
  },
  runs: [
    {
      id: 'a1',
      input: '',
      steps: [
        {
          label: 'simulated · decompose',
          system: SIM,
          user: 'Barns per River Farm; Goats per Barn; Goats per River Farm.',
          output:
            '1) Barns per River Farm = 5. 2) Goats per Barn = 5 + 2 = 7. 3) Goats per River Farm = 5 × 7 mod 23.',
          promptTokens: 180,
          completionTokens: 60,
          latencyMs: 120,
        },
      ],
      output: 'Sub-questions: barns = 5; goats per barn = 7; goats = 35 mod 23',
    },
    {
      id: 'a2',
      after: ['a1'],
      input: 'Sub-questions: barns = 5; goats per barn = 7; goats = 35 mod 23',
      steps: [
        ...[1, 2, 3, 4, 5].map((i) => ({
          label: `simulated · sample ${i}/5`,
          system: SIM,
          user: 'Goats per River Farm = 5 × 7 mod 23',
          output: i === 4 ? '\\boxed{11}' : '\\boxed{12}',
          promptTokens: 150,
          completionTokens: 40,
          latencyMs: 90 + i * 7,
          parallel: i > 1,
        })),
        { kind: 'vote', note: 'Majority vote over 5 samples: 12 (4 votes), 11 (1 vote).' },
      ],
      output: '12',
    },
    {
      id: 'a3',
      after: ['a2'],
      input: 'Check: 12',
      steps: [
        {
          label: 'simulated · verify',
          system: SIM,
          user: 'Check: 12',
          output: '35 mod 23 = 12. ACCEPT. \\boxed{12}',
          promptTokens: 160,
          completionTokens: 30,
          latencyMs: 100,
        },
        { kind: 'verdict', note: 'Critic round 1: ACCEPT — stopping.' },
      ],
      output: '12',
    },
    {
      id: 'final',
      after: ['a1', 'a2', 'a3'],
      input: 'Answers so far: … | 12 | 12',
      steps: [
        {
          label: 'simulated · summarise',
          system: SIM,
          user: 'Answers so far: … | 12 | 12',
          output: '\\boxed{12}',
          promptTokens: 120,
          completionTokens: 10,
          latencyMs: 60,
        },
      ],
      output: '12',
    },
  ],
  finalAnswer: '12',
  answerAgent: 'final',
  correct: true,
  tags: ['mashost', 'construction', 'simulated', 'correct'],
});

export interface ExampleEntry {
  file: string;
  title: string;
  summary: string;
  tags: string[];
  trace: Trace;
}

export const EXAMPLES: ExampleEntry[] = [
  {
    file: 'parallel-branches.json',
    title: parallel.title,
    summary:
      'Four agents, two independent branches that run at the same time (one checked, one self-consistent), then a merge.',
    tags: parallel.tags,
    trace: parallel,
  },
  {
    file: 'debate.json',
    title: debate.title,
    summary: 'One DebateAgent: an Algebraist and a Geometer argue for two rounds, then a judge decides.',
    tags: debate.tags,
    trace: debate,
  },
  {
    file: 'reflexion.json',
    title: reflexion.title,
    summary: 'A ReflexionAgent whose critic rejects two answers before accepting the third.',
    tags: reflexion.tags,
    trace: reflexion,
  },
  {
    file: 'mas-tts-discussion.json',
    title: ceo.title,
    summary:
      'A MAS-TTS-style CEO decides each turn whether to continue, whom to recruit and with what budget.',
    tags: ceo.tags,
    trace: ceo,
  },
  {
    file: 'failed-agent.json',
    title: failed.title,
    summary:
      'One branch times out and then gets HTTP 503; the merge agent receives a marked placeholder and recovers.',
    tags: failed.tags,
    trace: failed,
  },
  {
    file: 'mashost-construction.json',
    title: construction.title,
    summary:
      'Replay a MasHost construction step by step (role distribution, edge probabilities, rewards), then its simulated execution.',
    tags: construction.tags,
    trace: construction,
  },
];
