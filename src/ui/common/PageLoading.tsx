import type { JSX } from 'react';
import { Loading } from './Status.tsx';

/** What a lazily loaded page shows while its code downloads. */
export function PageLoading({ what }: { what: string }): JSX.Element {
  return (
    <section className="page page-narrow" data-testid="page-loading">
      <Loading>Loading {what}…</Loading>
    </section>
  );
}
