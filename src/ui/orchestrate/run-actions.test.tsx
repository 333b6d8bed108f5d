import { readFileSync } from 'node:fs';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SIMULATOR_MASBENCH_ONLY } from '../../store/slices/orchestrate.ts';
import { RunButtons, type RunButtonsProps } from './RunActions.tsx';

const view = (patch: Partial<RunButtonsProps>): string =>
  renderToStaticMarkup(
    <RunButtons
      simBlockers=""
      provBlockers=""
      providerLabel="OpenAI · gpt-4o-mini"
      draftMode="custom"
      run={{ status: 'idle', target: null, problems: [], progress: null }}
      onRun={() => undefined}
      onStop={() => undefined}
      onUseMasbench={() => undefined}
      {...patch}
    />,
  );

const NO_KEY = 'Settings: enter an API key for OpenAI.';

/** The element whose data-testid is `id`, as markup (its opening tag). */
const tagOf = (html: string, id: string): string => {
  const m = new RegExp(`<[^>]*data-testid="${id}"[^>]*>`).exec(html);
  if (!m) throw new Error(`no ${id}`);
  return m[0];
};

describe('running an orchestrated design written for a free-text question', () => {
  it('says on the page why the simulator is off and offers what works', () => {
    const html = view({ simBlockers: SIMULATOR_MASBENCH_ONLY, provBlockers: NO_KEY });
    const sim = tagOf(html, 'orch-run-sim');
    expect(sim).toContain('disabled');
    // A disabled button is not styled as the primary action, and its reason is not only a tooltip.
    expect(sim).not.toContain('btn-primary');
    expect(sim).not.toContain('title=');
    expect(html).toContain(`not available: ${SIMULATOR_MASBENCH_ONLY}`);
    expect(html).toContain(`not available: ${NO_KEY}`);
    expect(html).toContain('The simulator cannot run this design on your question.');
    expect(html).toContain('data-testid="orch-use-masbench"');
    expect(html).toMatch(/data-testid="orch-alt-provider"[^]*?href="#\/settings"/);
    expect(html).toMatch(/data-testid="orch-alt-local"[^]*?Ollama/);
  });

  it('makes the provider the primary action when it can run and the simulator cannot', () => {
    const html = view({ simBlockers: SIMULATOR_MASBENCH_ONLY });
    expect(tagOf(html, 'orch-run-provider')).toContain('btn btn-primary');
    expect(tagOf(html, 'orch-run-provider')).not.toContain('disabled');
    expect(html).toContain('Run on OpenAI · gpt-4o-mini: the button above sends real calls');
  });

  it('says to orchestrate again once the task panel holds a generated task', () => {
    const html = view({ simBlockers: SIMULATOR_MASBENCH_ONLY, draftMode: 'masbench' });
    expect(html).toContain('data-testid="orch-alt-switched"');
    expect(html).not.toContain('data-testid="orch-use-masbench"');
  });

  it('offers no alternatives when the simulator can run the task', () => {
    const html = view({});
    expect(tagOf(html, 'orch-run-sim')).toContain('btn btn-primary');
    expect(tagOf(html, 'orch-run-sim')).not.toContain('disabled');
    expect(html).not.toContain('data-testid="orch-sim-why"');
  });
});

describe('the app-wide button style', () => {
  it('gives disabled buttons their own look, not the primary fill', () => {
    const css = readFileSync(new URL('../styles/base.css', import.meta.url), 'utf8');
    const rule = /\.btn:disabled[^{]*\{([^}]*)\}/.exec(css);
    expect(rule?.[1]).toMatch(/background:\s*var\(--surface-2\)/);
    expect(rule?.[1]).toMatch(/cursor:\s*not-allowed/);
  });
});
