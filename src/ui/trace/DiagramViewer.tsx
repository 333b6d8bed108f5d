import {
  useCallback,
  useEffect,
  useRef,
  useState,
  type JSX,
  type KeyboardEvent,
  type PointerEvent,
  type WheelEvent,
} from 'react';
import { safeDiagram } from './provenance.ts';
import './diagram.css';

const MIN_SCALE = 0.05;
const MAX_SCALE = 8;
const STEP = 1.25;

interface View {
  scale: number;
  x: number;
  y: number;
}

const clampScale = (s: number): number => Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));

/**
 * The source tool's rendered diagram, beside the graph in the main area: it opens fitted to its
 * pane, zooms with the wheel, the buttons or + / − / 0 / 1, and pans by dragging or with the arrow
 * keys. "Full size" gives it the whole main area. Only a base64 PNG, JPEG or WebP data URL is ever
 * set as the image source (`safeDiagram`), and only in an `<img>`.
 */
export function DiagramViewer({
  url,
  source,
  expanded,
  onExpand,
  hidden = false,
  onHide,
}: {
  url: string;
  source: string;
  expanded: boolean;
  onExpand: (expanded: boolean) => void;
  /** Folded to a strip at the side, so the graph has the whole main area. */
  hidden?: boolean;
  onHide?: (hidden: boolean) => void;
}): JSX.Element | null {
  const safe = safeDiagram(url);
  const frame = useRef<HTMLDivElement>(null);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const [view, setView] = useState<View>({ scale: 1, x: 0, y: 0 });
  const drag = useRef<{ px: number; py: number; x: number; y: number } | null>(null);

  const fit = useCallback((): void => {
    const el = frame.current;
    if (!el || !natural) return;
    const pad = 16;
    const w = Math.max(1, el.clientWidth - pad * 2);
    const h = Math.max(1, el.clientHeight - pad * 2);
    const scale = clampScale(Math.min(w / natural.w, h / natural.h));
    setView({
      scale,
      x: (el.clientWidth - natural.w * scale) / 2,
      y: (el.clientHeight - natural.h * scale) / 2,
    });
  }, [natural]);

  // Fit when the image loads and whenever the pane changes size (side by side ↔ full size).
  useEffect(() => {
    const el = frame.current;
    if (!el || !natural) return;
    fit();
    const ro = new ResizeObserver(() => fit());
    ro.observe(el);
    return () => ro.disconnect();
  }, [fit, natural, expanded, hidden]);

  /** Zooms by `factor` about a point of the frame (its centre by default), keeping that point still. */
  const zoom = useCallback((factor: number, at?: { x: number; y: number }): void => {
    const el = frame.current;
    const cx = at?.x ?? (el ? el.clientWidth / 2 : 0);
    const cy = at?.y ?? (el ? el.clientHeight / 2 : 0);
    setView((v) => {
      const scale = clampScale(v.scale * factor);
      const k = scale / v.scale;
      return { scale, x: cx - (cx - v.x) * k, y: cy - (cy - v.y) * k };
    });
  }, []);

  const actual = useCallback((): void => {
    const el = frame.current;
    if (!el || !natural) return;
    setView({ scale: 1, x: Math.max(0, (el.clientWidth - natural.w) / 2), y: 16 });
  }, [natural]);

  if (safe === null) return null;
  if (hidden) {
    return (
      <section className="diagram-viewer folded" data-testid="diagram-viewer" data-hidden="true">
        <button
          type="button"
          className="diagram-unfold"
          onClick={() => onHide?.(false)}
          data-testid="diagram-show"
          title={`Show the diagram from ${source} beside the graph`}
        >
          ◂ Diagram
        </button>
      </section>
    );
  }

  const onWheel = (e: WheelEvent<HTMLDivElement>): void => {
    const rect = e.currentTarget.getBoundingClientRect();
    zoom(e.deltaY < 0 ? STEP : 1 / STEP, { x: e.clientX - rect.left, y: e.clientY - rect.top });
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { px: e.clientX, py: e.clientY, x: view.x, y: view.y };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    const d = drag.current;
    if (!d) return;
    setView((v) => ({ ...v, x: d.x + e.clientX - d.px, y: d.y + e.clientY - d.py }));
  };
  const onPointerUp = (): void => {
    drag.current = null;
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const pan = 40;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [pan, 0],
      ArrowRight: [-pan, 0],
      ArrowUp: [0, pan],
      ArrowDown: [0, -pan],
    };
    const move = moves[e.key];
    if (move) setView((v) => ({ ...v, x: v.x + move[0], y: v.y + move[1] }));
    else if (e.key === '+' || e.key === '=') zoom(STEP);
    else if (e.key === '-') zoom(1 / STEP);
    else if (e.key === '0') fit();
    else if (e.key === '1') actual();
    else if (e.key === 'Escape' && expanded) onExpand(false);
    else return;
    // The page's replay keys (arrows, Home, End) must not also move while the diagram has focus.
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <section
      className={expanded ? 'diagram-viewer expanded' : 'diagram-viewer'}
      data-testid="diagram-viewer"
      data-expanded={String(expanded)}
      aria-label={`Diagram from ${source}`}
    >
      <div className="diagram-toolbar">
        <strong className="diagram-title">Diagram from {source}</strong>
        <span className="diagram-zoom muted" data-testid="diagram-zoom">
          {Math.round(view.scale * 100)}%
        </span>
        <div className="diagram-buttons">
          <button type="button" className="btn btn-small" onClick={() => zoom(1 / STEP)} title="Zoom out (−)">
            −
          </button>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => zoom(STEP)}
            title="Zoom in (+)"
            data-testid="diagram-zoom-in"
          >
            +
          </button>
          <button type="button" className="btn btn-small" onClick={fit} title="Fit to the pane (0)">
            Fit
          </button>
          <button
            type="button"
            className="btn btn-small"
            onClick={actual}
            title="Actual pixels (1)"
            data-testid="diagram-actual"
          >
            1:1
          </button>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => onExpand(!expanded)}
            data-testid="diagram-expand"
            aria-pressed={expanded}
          >
            {expanded ? 'Side by side' : 'Full size'}
          </button>
          {onHide && !expanded && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => onHide(true)}
              data-testid="diagram-hide"
              title="Fold the diagram away and give the graph the whole width"
            >
              Hide
            </button>
          )}
        </div>
      </div>
      <div
        ref={frame}
        className="diagram-frame"
        data-testid="diagram-frame"
        data-scale={view.scale.toFixed(3)}
        tabIndex={0}
        onWheel={onWheel}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onKeyDown={onKeyDown}
        aria-label="Diagram: drag to pan, wheel or + and − to zoom, 0 to fit, 1 for actual pixels"
      >
        <img
          className="diagram-image"
          data-testid="diagram-image"
          src={safe}
          alt={`MAS diagram from ${source}`}
          draggable={false}
          onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
          style={{
            transform: `translate(${view.x}px, ${view.y}px) scale(${view.scale})`,
            visibility: natural ? 'visible' : 'hidden',
          }}
        />
      </div>
    </section>
  );
}
