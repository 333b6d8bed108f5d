import { z } from 'zod';
import {
  DEFAULT_PRICES,
  PROVIDER_PRESETS,
  normalizeBaseUrl,
  priceOf,
  type ModelPrice,
  type ProviderId,
  type ProviderPreset,
} from '../../executor/llm/index.ts';
import type { DesignOutputChoice } from '../../executor/provider-design-read.ts';
import type { RunBudget } from '../../executor/run.ts';
import { testConnection, type BackendSpec } from '../services/runner.ts';
import {
  forgetKey,
  keyLocation,
  loadKey,
  loadPref,
  savePref,
  saveKey,
  type KeyLocation,
} from '../services/keys.ts';
import type { SliceCreator } from '../store.ts';

export { PROVIDER_PRESETS, DEFAULT_PRICES, priceOf };
export type { KeyLocation, ModelPrice, ProviderId, ProviderPreset };

/** Presets in the order the Settings page lists them. */
export const PROVIDER_ORDER: readonly ProviderId[] = [
  'openai',
  'together',
  'openrouter',
  'groq',
  'deepseek',
  'ollama',
  'lmstudio',
  'llamacpp',
  'vllm',
  'custom',
];

export interface Connection {
  baseUrl: string;
  model: string;
}

/** Run limits; null = no limit. */
export interface BudgetSettings {
  /** Prompt + completion tokens for a whole run. */
  totalTokens: number | null;
  /** USD for a whole run; calls to models without a price are refused under it. */
  totalUsd: number | null;
  /** Prompt + completion tokens one agent may use over all its calls. */
  perAgentTokens: number | null;
}

export type ConnectionTest =
  | { status: 'idle' }
  | { status: 'testing' }
  | { status: 'ok'; models: string[] }
  | { status: 'error'; message: string };

export interface SettingsSlice {
  settingsReady: boolean;
  provider: ProviderId;
  /** Base URL and model per preset, so switching presets keeps what was typed for each. */
  connections: Record<ProviderId, Connection>;
  /** USD per million tokens, by model name (see executor/llm/pricing.ts). */
  prices: Record<string, ModelPrice>;
  /**
   * The run budget of the current provider: remote providers share one, local servers (Ollama,
   * LM Studio, llama.cpp, vLLM: no price) another, so the local one has no dollar limit by default.
   */
  budget: BudgetSettings;
  /** Both budgets; `budget` is the current provider's. */
  budgets: Record<BudgetKind, BudgetSettings>;
  /** Agents running at once. */
  concurrency: number;
  /** Where the current provider's key is saved; the key itself never enters the store. */
  keyLocation: KeyLocation;
  connectionTest: ConnectionTest;
  /** Repair turns a provider orchestrator gets: an invalid design goes back with its problems (0–10). */
  repairTurns: number;
  /** What a provider orchestrator is asked to write: XML, the design's JSON schema, or `auto`. */
  designOutput: DesignOutputChoice;
  /** Seconds a provider orchestrator's design call may take before it fails as a timeout (1–600). */
  designTimeoutS: number;

  /** Reads saved settings from localStorage; idempotent. */
  initSettings(): void;
  selectProvider(id: ProviderId): void;
  setBaseUrl(url: string): void;
  setModel(model: string): void;
  /** Saves the current provider's key: in this tab, or on this device when `remember`. */
  setApiKey(key: string, remember: boolean): void;
  /** Moves a saved key between this tab and this device. */
  setRememberKey(remember: boolean): void;
  forgetApiKey(): void;
  /** Lists the provider's models with the saved key (GET /models). */
  testConnection(): Promise<void>;
  setPrice(model: string, price: ModelPrice): void;
  removePrice(model: string): void;
  resetPrices(): void;
  setBudget(budget: Partial<BudgetSettings>): void;
  setConcurrency(n: number): void;
  setRepairTurns(n: number): void;
  setDesignOutput(o: DesignOutputChoice): void;
  setDesignTimeout(seconds: number): void;
}

export const DEFAULT_BUDGET: BudgetSettings = { totalTokens: 200_000, totalUsd: 1, perAgentTokens: 50_000 };
/** A local server's models have no price: a token limit, and no dollar limit (which would refuse every call). */
export const DEFAULT_LOCAL_BUDGET: BudgetSettings = {
  totalTokens: 200_000,
  totalUsd: null,
  perAgentTokens: 50_000,
};

export type BudgetKind = 'remote' | 'local';
export const budgetKindOf = (id: ProviderId): BudgetKind => (PROVIDER_PRESETS[id].local ? 'local' : 'remote');
const defaultBudgets = (): Record<BudgetKind, BudgetSettings> => ({
  remote: { ...DEFAULT_BUDGET },
  local: { ...DEFAULT_LOCAL_BUDGET },
});
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;

/** A design call's timeout, seconds: the client's default per-attempt timeout, and its cap here. */
export const DEFAULT_DESIGN_TIMEOUT_S = 60;
export const MAX_DESIGN_TIMEOUT_S = 600;

const SETTINGS_PREF = 'baton.settings/1';
/** Kept apart from the provider settings: the orchestrator's own. */
const ORCHESTRATOR_PREF = 'baton.orchestrator-settings/1';
const OrchestratorPrefSchema = z.object({
  repairTurns: z.number().int().min(0).max(10),
  designOutput: z.enum(['xml', 'json-schema', 'auto']).default('xml'),
  designTimeoutS: z.number().int().min(1).max(MAX_DESIGN_TIMEOUT_S).default(DEFAULT_DESIGN_TIMEOUT_S),
});
const PRICES_PREF = 'baton.prices/1';

const defaultConnections = (): Record<ProviderId, Connection> =>
  Object.fromEntries(
    PROVIDER_ORDER.map((id) => [
      id,
      { baseUrl: PROVIDER_PRESETS[id].baseUrl, model: PROVIDER_PRESETS[id].exampleModel },
    ]),
  ) as Record<ProviderId, Connection>;

const limit = z.number().finite().positive().nullable();
const BudgetPrefSchema = z.object({ totalTokens: limit, totalUsd: limit, perAgentTokens: limit });
const SettingsPrefSchema = z.object({
  provider: z.enum(PROVIDER_ORDER as [ProviderId, ...ProviderId[]]),
  connections: z.record(z.string(), z.object({ baseUrl: z.string().max(2_000), model: z.string().max(500) })),
  /** The remote providers' budget (settings saved before local presets had their own: the only one). */
  budget: BudgetPrefSchema,
  /** The local servers' budget; missing from older settings, which then get `DEFAULT_LOCAL_BUDGET`. */
  localBudget: BudgetPrefSchema.optional(),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY),
});
const PriceSchema = z.object({
  inputPerMTok: z.number().finite().nonnegative(),
  outputPerMTok: z.number().finite().nonnegative(),
});
const PricesPrefSchema = z.record(z.string().min(1).max(500), PriceSchema);

/** The base URL the current settings would call, or why they cannot. */
export function connectionUrl(
  s: Pick<SettingsSlice, 'provider' | 'connections'>,
): { ok: true; url: string } | { ok: false; message: string } {
  const raw = s.connections[s.provider].baseUrl;
  if (raw.trim() === '') return { ok: false, message: 'Enter the base URL of the server.' };
  return normalizeBaseUrl(raw);
}

/** What keeps the configured provider from being called, in words; empty when it can be. */
export function providerBlockers(
  s: Pick<SettingsSlice, 'provider' | 'connections' | 'keyLocation'>,
): string[] {
  const out: string[] = [];
  const url = connectionUrl(s);
  if (!url.ok) out.push(`Settings: ${url.message}`);
  if (s.connections[s.provider].model.trim() === '') out.push('Settings: choose a model.');
  if (PROVIDER_PRESETS[s.provider].needsKey && s.keyLocation === 'none')
    out.push(`Settings: enter an API key for ${PROVIDER_PRESETS[s.provider].label}.`);
  return out;
}

/** The remote backend the settings describe (the key read from where it is kept), or null. */
export function remoteSpecOf(
  s: Pick<SettingsSlice, 'provider' | 'connections' | 'prices'>,
): Extract<BackendSpec, { kind: 'remote' }> | null {
  const url = connectionUrl(s);
  if (!url.ok) return null;
  return {
    kind: 'remote',
    provider: s.provider,
    baseUrl: url.url,
    model: s.connections[s.provider].model.trim(),
    apiKey: loadKey(s.provider) ?? '',
    prices: s.prices,
  };
}

/** The run limits of the settings (null = no limit). */
export function runBudgetOf(s: Pick<SettingsSlice, 'budget'>): RunBudget {
  return {
    ...(s.budget.totalTokens !== null ? { totalTokens: s.budget.totalTokens } : {}),
    ...(s.budget.totalUsd !== null ? { totalUsd: s.budget.totalUsd } : {}),
    ...(s.budget.perAgentTokens !== null ? { perAgentTokens: s.budget.perAgentTokens } : {}),
  };
}

export const createSettingsSlice: SliceCreator<SettingsSlice> = (set, get) => {
  const saveOrchestrator = (): void => {
    const { repairTurns, designOutput, designTimeoutS } = get();
    savePref(ORCHESTRATOR_PREF, { repairTurns, designOutput, designTimeoutS });
  };
  const persist = (): void => {
    const s = get();
    savePref(SETTINGS_PREF, {
      provider: s.provider,
      connections: s.connections,
      budget: s.budgets.remote,
      localBudget: s.budgets.local,
      concurrency: s.concurrency,
    });
  };
  const connectionChanged = (patch: Partial<Connection>): void => {
    set((s) => ({
      connections: { ...s.connections, [s.provider]: { ...s.connections[s.provider], ...patch } },
      connectionTest: { status: 'idle' },
    }));
    persist();
  };

  return {
    settingsReady: false,
    provider: 'openai',
    connections: defaultConnections(),
    prices: { ...DEFAULT_PRICES },
    budget: { ...DEFAULT_BUDGET },
    budgets: defaultBudgets(),
    concurrency: DEFAULT_CONCURRENCY,
    keyLocation: 'none',
    connectionTest: { status: 'idle' },
    repairTurns: 2,
    designOutput: 'xml',
    designTimeoutS: DEFAULT_DESIGN_TIMEOUT_S,

    initSettings() {
      if (get().settingsReady) return;
      const saved = SettingsPrefSchema.safeParse(loadPref(SETTINGS_PREF));
      const prices = PricesPrefSchema.safeParse(loadPref(PRICES_PREF));
      const orch = OrchestratorPrefSchema.safeParse(loadPref(ORCHESTRATOR_PREF));
      if (orch.success) set({ ...orch.data });
      const connections = defaultConnections();
      if (saved.success) {
        for (const id of PROVIDER_ORDER) {
          const c = saved.data.connections[id];
          if (c) connections[id] = c;
        }
      }
      const provider = saved.success ? saved.data.provider : get().provider;
      const budgets = saved.success
        ? { remote: saved.data.budget, local: saved.data.localBudget ?? { ...DEFAULT_LOCAL_BUDGET } }
        : get().budgets;
      set({
        settingsReady: true,
        connections,
        provider,
        budgets,
        budget: budgets[budgetKindOf(provider)],
        ...(saved.success ? { concurrency: saved.data.concurrency } : {}),
        ...(prices.success ? { prices: prices.data } : {}),
        keyLocation: keyLocation(provider),
      });
    },

    selectProvider(id) {
      set({
        provider: id,
        budget: get().budgets[budgetKindOf(id)],
        keyLocation: keyLocation(id),
        connectionTest: { status: 'idle' },
      });
      persist();
    },

    setBaseUrl(url) {
      connectionChanged({ baseUrl: url });
    },

    setModel(model) {
      connectionChanged({ model });
    },

    setApiKey(key, remember) {
      const provider = get().provider;
      set({ keyLocation: saveKey(provider, key, remember), connectionTest: { status: 'idle' } });
    },

    setRememberKey(remember) {
      const provider = get().provider;
      const key = loadKey(provider);
      if (key === null) return;
      set({ keyLocation: saveKey(provider, key, remember) });
    },

    forgetApiKey() {
      forgetKey(get().provider);
      set({ keyLocation: 'none', connectionTest: { status: 'idle' } });
    },

    async testConnection() {
      const s = get();
      const url = connectionUrl(s);
      if (!url.ok) {
        set({ connectionTest: { status: 'error', message: url.message } });
        return;
      }
      set({ connectionTest: { status: 'testing' } });
      const result = await testConnection({ baseUrl: url.url, apiKey: loadKey(s.provider) ?? '' });
      // A reply for settings that changed meanwhile would describe the wrong server.
      const now = get();
      if (now.provider !== s.provider || now.connections[s.provider] !== s.connections[s.provider]) return;
      set({
        connectionTest: result.ok
          ? { status: 'ok', models: result.models }
          : { status: 'error', message: result.message },
      });
    },

    setPrice(model, price) {
      const name = model.trim();
      if (name === '' || !PriceSchema.safeParse(price).success) return;
      set((s) => ({ prices: { ...s.prices, [name]: price } }));
      savePref(PRICES_PREF, get().prices);
    },

    removePrice(model) {
      set((s) => {
        const prices = { ...s.prices };
        delete prices[model];
        return { prices };
      });
      savePref(PRICES_PREF, get().prices);
    },

    resetPrices() {
      set({ prices: { ...DEFAULT_PRICES } });
      savePref(PRICES_PREF, undefined);
    },

    setBudget(budget) {
      const clean = (v: number | null | undefined, old: number | null): number | null =>
        v === undefined ? old : v === null || !Number.isFinite(v) || v <= 0 ? null : v;
      set((s) => {
        const next = {
          totalTokens: clean(budget.totalTokens, s.budget.totalTokens),
          totalUsd: clean(budget.totalUsd, s.budget.totalUsd),
          perAgentTokens: clean(budget.perAgentTokens, s.budget.perAgentTokens),
        };
        return { budget: next, budgets: { ...s.budgets, [budgetKindOf(s.provider)]: next } };
      });
      persist();
    },

    setConcurrency(n) {
      const c = Math.max(
        1,
        Math.min(MAX_CONCURRENCY, Math.round(Number.isFinite(n) ? n : DEFAULT_CONCURRENCY)),
      );
      set({ concurrency: c });
      persist();
    },

    setRepairTurns(n) {
      const turns = Math.max(0, Math.min(10, Math.round(Number.isFinite(n) ? n : 2)));
      set({ repairTurns: turns });
      saveOrchestrator();
    },

    setDesignOutput(o) {
      set({ designOutput: o });
      saveOrchestrator();
    },

    setDesignTimeout(seconds) {
      const t = Math.round(Number.isFinite(seconds) ? seconds : DEFAULT_DESIGN_TIMEOUT_S);
      set({ designTimeoutS: Math.max(1, Math.min(MAX_DESIGN_TIMEOUT_S, t)) });
      saveOrchestrator();
    },
  };
};
