import type { JSX } from 'react';

export interface DistributionProps {
  /** Action names in node-head order: roles, then DELETE and EXIT. */
  names: string[];
  /** What each role does, for the tooltip (roles only). */
  hints: string[];
  distribution: number[];
  mask: number[];
  /** The user's picked column. */
  picked: number | null;
  /** The role whose candidate edges the graph shows. */
  previewRole: number | null;
  disabled: boolean;
  onPick: (column: number) => void;
}

/** The digit that picks a column (1..9, then 0 for the tenth); none beyond. */
export function digitFor(column: number): string | null {
  if (column < 9) return String(column + 1);
  if (column === 9) return '0';
  return null;
}

/**
 * π_node for the next step over roles ∪ {DELETE, EXIT}, in head order. Masked actions read 0 and
 * cannot be picked. Clicking a bar picks that action for the next step.
 */
export function Distribution(props: DistributionProps): JSX.Element {
  const { names, distribution, mask, picked, previewRole, disabled, onPick } = props;
  return (
    <div className="dist" data-testid="distribution" role="group" aria-label="Next action distribution">
      {names.map((name, i) => {
        const p = distribution[i] ?? 0;
        const masked = mask[i] !== 1;
        const special = name === 'DELETE' || name === 'EXIT';
        const key = special ? null : digitFor(i);
        const classes = ['dist-row'];
        if (masked) classes.push('masked');
        if (picked === i) classes.push('picked');
        if (previewRole === i && picked === null) classes.push('preview');
        if (special) classes.push('special');
        return (
          <button
            key={name}
            type="button"
            className={classes.join(' ')}
            data-testid="dist-bar"
            data-action={name}
            data-p={masked ? 0 : p}
            data-masked={masked ? 'true' : 'false'}
            aria-pressed={picked === i}
            disabled={masked || disabled}
            title={
              masked
                ? `${name} is not allowed in this state`
                : `${name}: p = ${p.toFixed(4)}${props.hints[i] ? ` — ${props.hints[i]}` : ''}`
            }
            onClick={() => onPick(i)}
          >
            <span className="dist-key">{key ?? ''}</span>
            <span className="dist-name">{name}</span>
            <span className="dist-bar">
              <span className="dist-fill" style={{ width: `${masked ? 0 : p * 100}%` }} />
            </span>
            <span className="dist-p" data-testid="dist-value">
              {masked ? '0' : p < 0.0005 && p > 0 ? '<0.001' : p.toFixed(3)}
            </span>
          </button>
        );
      })}
    </div>
  );
}
