import { useEffect, useRef, useState, type JSX } from 'react';
import {
  MAX_CONCURRENCY,
  PROVIDER_ORDER,
  PROVIDER_PRESETS,
  type BudgetSettings,
  type ProviderId,
} from '../../store/slices/settings.ts';
import { useBaton } from '../../store/store.ts';
import { PriceTable } from './PriceTable.tsx';
import './settings.css';
import { OrchestratorSection } from './OrchestratorSection.tsx';

const CORS_WORDS = {
  'reported-ok': 'browser calls widely reported to work',
  'local-config': 'local server: allow this page’s origin',
  unknown: 'browser (CORS) access not verified',
} as const;

/** A number field where empty means "no limit". */
function LimitField({
  label,
  value,
  step,
  testId,
  onChange,
}: {
  label: string;
  value: number | null;
  step: number;
  testId: string;
  onChange: (v: number | null) => void;
}): JSX.Element {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        className="input"
        type="number"
        min={0}
        step={step}
        value={value ?? ''}
        placeholder="no limit"
        data-testid={testId}
        onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}
      />
    </label>
  );
}

function ConnectionSection(): JSX.Element {
  const provider = useBaton((s) => s.provider);
  const connection = useBaton((s) => s.connections[s.provider]);
  const selectProvider = useBaton((s) => s.selectProvider);
  const setBaseUrl = useBaton((s) => s.setBaseUrl);
  const setModel = useBaton((s) => s.setModel);
  const preset = PROVIDER_PRESETS[provider];
  return (
    <section className="settings-card" aria-labelledby="settings-connection">
      <h2 id="settings-connection">Provider</h2>
      <p className="muted">
        Sub-agents call this OpenAI-compatible API straight from your browser; Baton has no server in between.
      </p>
      <div className="settings-grid">
        <label className="field">
          <span>Preset</span>
          <select
            className="input"
            value={provider}
            data-testid="settings-provider"
            onChange={(e) => selectProvider(e.target.value as ProviderId)}
          >
            {PROVIDER_ORDER.map((id) => (
              <option key={id} value={id}>
                {PROVIDER_PRESETS[id].label}
              </option>
            ))}
          </select>
        </label>
        <label className="field field-wide">
          <span>Base URL</span>
          <input
            className="input mono"
            value={connection.baseUrl}
            placeholder="https://api.example.com/v1"
            spellCheck={false}
            data-testid="settings-base-url"
            onChange={(e) => setBaseUrl(e.target.value)}
          />
        </label>
        <label className="field">
          <span>Model</span>
          <input
            className="input mono"
            value={connection.model}
            placeholder={preset.exampleModel || 'model id'}
            spellCheck={false}
            data-testid="settings-model"
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
      </div>
      <p className="settings-note" data-testid="settings-preset-note">
        <span className={`badge ${preset.cors === 'reported-ok' ? 'badge-ok' : 'badge-warn'}`}>
          {CORS_WORDS[preset.cors]}
        </span>{' '}
        {preset.note}
      </p>
    </section>
  );
}

function KeySection(): JSX.Element {
  const provider = useBaton((s) => s.provider);
  const location = useBaton((s) => s.keyLocation);
  const setApiKey = useBaton((s) => s.setApiKey);
  const setRememberKey = useBaton((s) => s.setRememberKey);
  const forgetApiKey = useBaton((s) => s.forgetApiKey);
  const test = useBaton((s) => s.connectionTest);
  const testConnection = useBaton((s) => s.testConnection);
  // The typed key stays in this field and in Web Storage only; the store learns where it is, not what.
  // The field is uncontrolled: React would otherwise mirror the key into a `value` attribute in the DOM.
  const field = useRef<HTMLInputElement>(null);
  // With a key saved, the checkbox shows where it is; without one, what the user asked for next time.
  const [wish, setWish] = useState(false);
  const remember = location === 'none' ? wish : location === 'device';
  const preset = PROVIDER_PRESETS[provider];
  return (
    <section className="settings-card" aria-labelledby="settings-key">
      <h2 id="settings-key">API key</h2>
      {/* Inside a form, as browsers expect of password fields (Chrome warns in the console otherwise). */}
      <form className="settings-grid" onSubmit={(e) => e.preventDefault()}>
        <label className="field field-wide">
          <span>Key for {preset.label}</span>
          <input
            className="input mono"
            type="password"
            autoComplete="off"
            spellCheck={false}
            ref={field}
            defaultValue=""
            placeholder={
              location === 'none'
                ? preset.needsKey
                  ? 'sk-…'
                  : 'not needed unless the server asks'
                : 'saved — type to replace'
            }
            data-testid="settings-api-key"
            onChange={(e) => {
              if (e.target.value !== '') setApiKey(e.target.value, remember);
            }}
          />
        </label>
        <div className="field">
          <span>&nbsp;</span>
          <button
            type="button"
            className="btn btn-danger"
            disabled={location === 'none'}
            title={location === 'none' ? 'No key is saved for this provider' : undefined}
            data-testid="settings-forget-key"
            onClick={() => {
              if (field.current) field.current.value = '';
              forgetApiKey();
            }}
          >
            Forget key
          </button>
        </div>
      </form>
      <label className="settings-check">
        <input
          type="checkbox"
          checked={remember}
          data-testid="settings-remember"
          onChange={(e) => {
            setWish(e.target.checked);
            setRememberKey(e.target.checked);
          }}
        />
        <span>
          <strong>Remember on this device.</strong> Off (default): the key is kept in this tab’s session
          storage and is gone when the tab closes. On: it is kept in this browser’s local storage and survives
          restarts — anyone using this browser profile, or any script running on this page’s origin, can read
          it. Use a key with a spending limit.
        </span>
      </label>
      <p className="muted small" data-testid="settings-key-status" data-location={location}>
        {location === 'none' && 'No key saved for this provider.'}
        {location === 'session' && 'A key is saved in this tab only.'}
        {location === 'device' && 'A key is saved on this device (local storage).'} The key is sent only as
        the Authorization header to the base URL above; it never enters traces, share links, exports or logs.
      </p>
      <div className="row">
        <button
          type="button"
          className="btn"
          disabled={test.status === 'testing'}
          data-testid="settings-test-connection"
          onClick={() => void testConnection()}
        >
          {test.status === 'testing' ? 'Testing…' : 'Test connection'}
        </button>
        {test.status === 'ok' && (
          <span className="badge badge-ok" data-testid="settings-connection-result" data-status="ok">
            Connected: {test.models.length === 1 ? '1 model' : `${test.models.length} models`} found
          </span>
        )}
      </div>
      {test.status === 'ok' && test.models.length > 0 && (
        <p className="muted small mono settings-models">
          {test.models.slice(0, 20).join(', ')}
          {test.models.length > 20 ? ` and ${test.models.length - 20} more` : ''}
        </p>
      )}
      {test.status === 'error' && (
        <div
          className="alert alert-error"
          role="alert"
          data-testid="settings-connection-result"
          data-status="error"
        >
          <div className="alert-body">
            <strong>The connection test failed</strong>
            <p>{test.message}</p>
          </div>
        </div>
      )}
    </section>
  );
}

function CorsHelp(): JSX.Element {
  return (
    <section className="settings-card" aria-labelledby="settings-cors" data-testid="settings-cors-help">
      <h2 id="settings-cors">If the test fails with a network error (CORS)</h2>
      <p>
        A browser may call an API from this page only if the API answers cross-origin requests (CORS). The
        browser hides the reason from the page; the console shows it.
      </p>
      <ul>
        <li>
          <strong>OpenAI</strong> and <strong>OpenRouter</strong> are widely reported to accept direct browser
          calls. <strong>Together</strong>, <strong>Groq</strong> and <strong>DeepSeek</strong> are not
          verified (DeepSeek reports conflict): test first, and if they refuse, put an OpenAI-compatible proxy
          you control on localhost in front of them and use the Custom preset.
        </li>
        <li>
          <strong>Ollama</strong> allows pages on localhost and 127.0.0.1 (any port) by default. For any other
          origin set <code>OLLAMA_ORIGINS</code> to this page’s origin and restart Ollama, e.g.{' '}
          <code>OLLAMA_ORIGINS="{window.location.origin}" ollama serve</code>.
        </li>
        <li>
          <strong>LM Studio</strong>: start its server (Developer tab) and turn on “Enable CORS”.{' '}
          <strong>llama.cpp</strong>’s <code>llama-server</code> answers any origin by default.
        </li>
        <li>
          <strong>vLLM</strong> allows every origin by default; to restrict it, start it with{' '}
          <code>vllm serve &lt;model&gt; --allowed-origins '["{window.location.origin}"]'</code>. Enter a key
          only if it was started with <code>--api-key</code>.
        </li>
        <li>
          <strong>Any other server</strong> must answer <code>OPTIONS</code> preflights with{' '}
          <code>Access-Control-Allow-Origin</code>, allow <code>POST</code>, and allow the{' '}
          <code>authorization</code> and <code>content-type</code> headers.
        </li>
      </ul>
      <p className="muted small">The full notes are in docs/providers.md in the Baton repository.</p>
    </section>
  );
}

function BudgetSection(): JSX.Element {
  const budget = useBaton((s) => s.budget);
  const concurrency = useBaton((s) => s.concurrency);
  const setBudget = useBaton((s) => s.setBudget);
  const setConcurrency = useBaton((s) => s.setConcurrency);
  const provider = useBaton((s) => s.provider);
  const local = PROVIDER_PRESETS[provider].local;
  const change = (patch: Partial<BudgetSettings>): void => setBudget(patch);
  return (
    <section
      className="settings-card"
      aria-labelledby="settings-budget"
      data-budget-kind={local ? 'local' : 'remote'}
    >
      <h2 id="settings-budget">Default run budget · {local ? 'local servers' : 'hosted providers'}</h2>
      <p className="muted">
        Each call reserves its worst case (estimated prompt + completion cap) before it is sent and is refused
        if that would cross a limit; a refused call fails its agent, and the run goes on. Empty = no limit.
      </p>
      <p className="settings-note" data-testid="settings-budget-kind">
        {local
          ? 'Local servers (Ollama, LM Studio, llama.cpp, vLLM) share this budget. Their models have no price, so it has no dollar limit by default: tokens limit a run instead.'
          : 'Hosted providers share this budget; local servers have their own, without a dollar limit.'}
      </p>
      <div className="settings-grid">
        <LimitField
          label="Total tokens per run"
          value={budget.totalTokens}
          step={1000}
          testId="settings-budget-tokens"
          onChange={(v) => change({ totalTokens: v })}
        />
        <LimitField
          label="Total USD per run"
          value={budget.totalUsd}
          step={0.01}
          testId="settings-budget-usd"
          onChange={(v) => change({ totalUsd: v })}
        />
        <LimitField
          label="Tokens per agent"
          value={budget.perAgentTokens}
          step={1000}
          testId="settings-budget-agent-tokens"
          onChange={(v) => change({ perAgentTokens: v })}
        />
        <label className="field">
          <span>Agents at once</span>
          <input
            className="input"
            type="number"
            min={1}
            max={MAX_CONCURRENCY}
            value={concurrency}
            data-testid="settings-concurrency"
            onChange={(e) => setConcurrency(Number(e.target.value))}
          />
        </label>
      </div>
      <p className="muted small">
        A USD limit refuses calls to models without a price in the table below: add the model’s price, or
        clear the USD limit.
      </p>
    </section>
  );
}

/** `#/settings`: provider, key, connection test, CORS help, prices, default budget. */
export function SettingsPage(): JSX.Element {
  const initSettings = useBaton((s) => s.initSettings);
  const provider = useBaton((s) => s.provider);
  useEffect(() => initSettings(), [initSettings]);
  return (
    <section className="page settings-page" data-testid="settings-page">
      <h1 className="page-title">Settings</h1>
      <ConnectionSection />
      <KeySection key={provider} />
      <CorsHelp />
      <BudgetSection />
      <OrchestratorSection />
      <PriceTable />
    </section>
  );
}
