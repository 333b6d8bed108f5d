import { useState, type JSX } from 'react';
import { useBaton } from '../../store/store.ts';

/** A price field: USD per million tokens; anything that is not a non-negative number is ignored. */
function PriceInput({
  value,
  label,
  onChange,
}: {
  value: number;
  label: string;
  onChange: (v: number) => void;
}): JSX.Element {
  return (
    <input
      className="input price-input"
      type="number"
      min={0}
      step={0.01}
      aria-label={label}
      defaultValue={value}
      onChange={(e) => {
        const v = Number(e.target.value);
        if (e.target.value !== '' && Number.isFinite(v) && v >= 0) onChange(v);
      }}
    />
  );
}

/** The editable price table (USD per million input / output tokens), kept in localStorage. */
export function PriceTable(): JSX.Element {
  const prices = useBaton((s) => s.prices);
  const setPrice = useBaton((s) => s.setPrice);
  const removePrice = useBaton((s) => s.removePrice);
  const resetPrices = useBaton((s) => s.resetPrices);
  const [name, setName] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const models = Object.keys(prices).sort();
  const canAdd =
    name.trim() !== '' && input !== '' && output !== '' && Number(input) >= 0 && Number(output) >= 0;
  return (
    <section className="settings-card" aria-labelledby="settings-prices">
      <h2 id="settings-prices">Prices</h2>
      <p className="muted">
        USD per million tokens, used to estimate each call’s cost and to enforce the USD limit. The defaults
        are 2025 list prices and go stale: correct them here. Saved on this device (not secret).
      </p>
      <table className="price-table" data-testid="settings-prices">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Input $/M</th>
            <th scope="col">Output $/M</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {models.map((m) => {
            const p = prices[m];
            if (!p) return null;
            return (
              <tr key={m} data-testid="settings-price-row" data-model={m}>
                <td className="mono">{m}</td>
                <td>
                  <PriceInput
                    value={p.inputPerMTok}
                    label={`${m} input price`}
                    onChange={(v) => setPrice(m, { ...p, inputPerMTok: v })}
                  />
                </td>
                <td>
                  <PriceInput
                    value={p.outputPerMTok}
                    label={`${m} output price`}
                    onChange={(v) => setPrice(m, { ...p, outputPerMTok: v })}
                  />
                </td>
                <td>
                  <button type="button" className="btn btn-ghost btn-small" onClick={() => removePrice(m)}>
                    Remove
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr>
            <td>
              <input
                className="input mono"
                placeholder="model id"
                value={name}
                data-testid="settings-price-new-model"
                onChange={(e) => setName(e.target.value)}
              />
            </td>
            <td>
              <input
                className="input price-input"
                type="number"
                min={0}
                step={0.01}
                aria-label="New model input price"
                value={input}
                data-testid="settings-price-new-input"
                onChange={(e) => setInput(e.target.value)}
              />
            </td>
            <td>
              <input
                className="input price-input"
                type="number"
                min={0}
                step={0.01}
                aria-label="New model output price"
                value={output}
                data-testid="settings-price-new-output"
                onChange={(e) => setOutput(e.target.value)}
              />
            </td>
            <td>
              <button
                type="button"
                className="btn btn-small"
                disabled={!canAdd}
                data-testid="settings-price-add"
                onClick={() => {
                  setPrice(name, { inputPerMTok: Number(input), outputPerMTok: Number(output) });
                  setName('');
                  setInput('');
                  setOutput('');
                }}
              >
                Add
              </button>
            </td>
          </tr>
        </tfoot>
      </table>
      <button type="button" className="btn btn-ghost btn-small" onClick={resetPrices}>
        Reset to the defaults
      </button>
    </section>
  );
}
