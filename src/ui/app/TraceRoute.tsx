import { useEffect, useMemo, useState, type JSX } from 'react';
import type { Trace } from '../../core/trace.ts';
import { traceListTitle } from '../../store/slices/library.ts';
import { otlpJsonOf } from '../../store/interop.ts';
import { useBaton } from '../../store/store.ts';
import { CorrectnessBadge } from '../common/Badges.tsx';
import { ErrorBoundary } from '../common/ErrorBoundary.tsx';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { EmptyState, Loading } from '../common/Status.tsx';
import { downloadText, downloadTraceJson, traceFileName } from '../share/download.ts';
import { ShareDialog } from '../share/ShareDialog.tsx';
import { HeaderDesignMeta, HeaderDesignNote } from '../trace/DesignProvenance.tsx';
import { TracePage } from '../trace/TracePage.tsx';

function srcParam(): string | null {
  return new URLSearchParams(location.search).get('src');
}

/** `#/trace/<id>`: finds the trace (memory, storage, `?src=`, examples) and frames the trace page. */
export function TraceRoute({ id }: { id: string | null }): JSX.Element {
  const trace = useBaton((s) => (id ? s.openTraces[id] : undefined));
  const load = useBaton((s) => (id ? s.traceLoads[id] : undefined));
  const ensureTrace = useBaton((s) => s.ensureTrace);

  useEffect(() => {
    if (id && !trace) void ensureTrace(id, { src: srcParam() });
  }, [id, trace, ensureTrace]);

  if (!id) {
    return (
      <section className="page page-narrow">
        <EmptyState title="No trace is open">
          <p>
            Open an example or a recent trace from the <a href="#/">gallery</a>, import a file, or paste a
            share link into the address bar.
          </p>
        </EmptyState>
      </section>
    );
  }
  if (trace) return <TraceFrame trace={trace} />;
  if (load?.status === 'error') {
    return (
      <section className="page page-narrow">
        <ProblemAlert title="This trace could not be opened" problems={load.problems} testId="trace-error" />
        <p>
          <a href="#/">Back to the gallery</a>
        </p>
      </section>
    );
  }
  return (
    <section className="page page-narrow">
      <Loading>Opening trace…</Loading>
    </section>
  );
}

function designerLabel(trace: Trace): string {
  const d = trace.designer;
  switch (d.kind) {
    case 'manual':
      return 'designed by hand';
    case 'policy':
      return `policy ${d.checkpoint}`;
    case 'orchestrator':
      return `orchestrator ${d.model}`;
    case 'imported':
      return `imported from ${d.tool}`;
  }
}

function TraceFrame({ trace }: { trace: Trace }): JSX.Element {
  const [sharing, setSharing] = useState(false);
  // Plain text cut at a word, with the row and step of an imported slide, as the gallery lists it.
  const listed = useMemo(() => traceListTitle(trace), [trace]);

  // The tab title names the trace, so several open tabs and the history list stay tellable apart.
  useEffect(() => {
    const previous = document.title;
    document.title = `${listed} — Baton`;
    return () => {
      document.title = previous;
    };
  }, [listed]);
  return (
    <div className="trace-frame">
      <div className="trace-header" data-testid="trace-header">
        <div className="trace-header-main">
          <h1 className="trace-title" data-testid="trace-title" title={trace.title}>
            {listed}
          </h1>
          <div className="trace-meta">
            <HeaderDesignMeta trace={trace} />
            <span className="sep">·</span>
            <CorrectnessBadge correct={trace.result.correct} />
            <span className="sep">·</span>
            <span>{designerLabel(trace)}</span>
            {trace.trimmed && (
              <>
                <span className="sep">·</span>
                <span
                  className="badge badge-warn"
                  title={`${trace.trimmed.charsRemoved} characters removed to fit a link`}
                  data-testid="trace-trimmed"
                >
                  trimmed
                </span>
              </>
            )}
          </div>
          <HeaderDesignNote trace={trace} />
        </div>
        <div className="trace-actions">
          <button
            type="button"
            className="btn"
            onClick={() => downloadTraceJson(trace)}
            data-testid="download-json"
          >
            Download JSON
          </button>
          <button
            type="button"
            className="btn"
            title="OpenTelemetry OTLP/JSON with GenAI and OpenInference attributes, for Langfuse, Arize Phoenix or an OpenTelemetry Collector"
            onClick={() =>
              void otlpJsonOf(trace).then((text) =>
                downloadText(traceFileName(trace).replace(/\.baton\.json$/, '.otlp.json'), text),
              )
            }
            data-testid="download-otlp"
          >
            Download OTLP
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => setSharing(true)}
            data-testid="share-button"
          >
            Share
          </button>
        </div>
      </div>
      <div className="trace-body">
        <ErrorBoundary what="The trace page">
          <TracePage trace={trace} />
        </ErrorBoundary>
      </div>
      {sharing && <ShareDialog trace={trace} onClose={() => setSharing(false)} />}
    </div>
  );
}
