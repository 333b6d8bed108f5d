import type { JSX } from 'react';

const WHAT: Record<string, string> = {
  Build: 'Step through MAS construction one action at a time, override choices, then execute.',
  Run: 'Run a design against an LLM API of your choice and record the trace.',
  Train: 'Fine-tune the construction policy in the tab with policy gradients (GRPO / HRPO).',
  Settings: 'API keys, budgets and model choices.',
};

/** A page that is planned but not built: says so plainly rather than pretending. */
export function NotAvailable({ name }: { name: string }): JSX.Element {
  return (
    <section className="page page-narrow" data-testid="not-available">
      <h1 className="page-title">{name}</h1>
      <div className="empty">
        <strong>{name} is not available yet.</strong>
        <p>{WHAT[name] ?? ''}</p>
        <p>
          Meanwhile you can inspect traces in the <a href="#/">gallery</a>.
        </p>
      </div>
    </section>
  );
}
