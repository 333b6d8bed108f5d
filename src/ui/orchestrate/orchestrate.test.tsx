import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import type { OrchGeneration } from '../../store/slices/orchestrate.ts';
import { resetBaton } from '../../store/store.ts';
import { CheckView, OrchestratePage } from './OrchestratePage.tsx';
import { OutputView } from './OutputPanel.tsx';

const view = (g: OrchGeneration): string =>
  renderToStaticMarkup(
    <>
      <OutputView g={g} onInterrupt={() => undefined} />
      <CheckView g={g} />
    </>,
  );

/** Model output is untrusted text: the page shows it as text, and its problems as alerts. */

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

function generation(patch: Partial<OrchGeneration>): OrchGeneration {
  return {
    status: 'done',
    task: { kind: 'custom', query: 'q' },
    model: {
      id: 'tiny',
      label: 'tiny',
      dtype: 'q8',
      device: 'wasm',
      deviceReason: 'no WebGPU adapter: wasm',
      loadMs: 1,
      warmupMs: 1,
      vocabSize: 257,
    },
    settings: { dom: 'auto', temperature: 0, seed: 0, constrained: false },
    text: '',
    tokens: 12,
    startedAt: 0,
    firstTokenAt: 5,
    endedAt: 100,
    result: null,
    problems: [],
    check: null,
    ...patch,
  };
}

beforeEach(() => resetBaton());

describe('the Orchestrate page', () => {
  it('shows the model output as text, never as HTML, and lists why it is no design', () => {
    const out = view(
      generation({
        text: `<thinking>${HOSTILE}</thinking>${HOSTILE}<agent><agent_id>`,
        check: { valid: false, lines: [`parse error: ${HOSTILE}`] },
      }),
    );
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x');
    expect(out).toContain('role="alert"');
    expect(out).toContain('The output is not a valid design');
  });

  it('keeps the interrupted text and says so', () => {
    const out = view(
      generation({
        status: 'interrupted',
        text: '<thinking>half a pla',
        check: { valid: false, lines: ['parse error: No <agent> block found.'] },
      }),
    );
    expect(out).toContain('half a pla');
    expect(out).toContain('data-status="interrupted"');
    expect(out).toContain('The interrupted output is not a complete design');
  });

  it('shows a direct answer as its own state (no empty graph), as text, with the tokens it took', () => {
    const text = `<thinking>no sub-agent is worth its cost here: answer directly</thinking><answer>${HOSTILE}</answer>`;
    const designer = {
      kind: 'orchestrator' as const,
      model: 'tiny2',
      rawOutput: text,
      parseErrors: [],
      branch: 'direct' as const,
    };
    const out = view(
      generation({
        text,
        tokens: 21,
        settings: { dom: 'low', temperature: 0, seed: 0, constrained: true },
        check: { valid: true, lines: [] },
        result: {
          rawOutput: text,
          design: { dom: 'low', agents: [], edges: [], thinking: 'x', directAnswer: HOSTILE },
          problem: null,
          stopReason: 'eos',
          timings: { firstTokenMs: 1, generateMs: 10, tokens: 21, tokensPerSecond: 2100 },
          designer,
        },
      }),
    );
    expect(out).toContain('data-testid="orch-direct"');
    expect(out).toContain('Answered directly, no sub-agent');
    expect(out).toContain('data-branch="direct"');
    expect(out).not.toContain('Agents appear here as the model writes them.');
    expect(out).not.toContain('0 agents');
    expect(out).toContain('data-testid="orch-check-direct"');
    expect(out).toContain('21 tokens written, no agent to run');
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x');
  });

  it('disables Orchestrate with the reason until a model is loaded', () => {
    const out = renderToStaticMarkup(<OrchestratePage />);
    expect(out).toMatch(/data-testid="orch-start"[^>]*disabled|disabled[^>]*data-testid="orch-start"/);
    expect(out).toContain('Load a model first.');
  });
});
