/**
 * Numbered trace migrations. `MIGRATIONS[n]` upgrades a `baton.trace/n` object to
 * `baton.trace/n+1` and must set the new `format` string. A migration is pure and never removes
 * information a later version can still represent. Each gets a test with a frozen input in
 * `src/core/migrations.test.ts`.
 *
 * baton.trace/1 is the first version, so the registry is empty today.
 */
export type Migration = (trace: unknown) => unknown;

export const MIGRATIONS: Readonly<Record<number, Migration>> = {};
