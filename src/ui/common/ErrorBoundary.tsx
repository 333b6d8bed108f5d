import { Component, type ErrorInfo, type ReactNode } from 'react';
import { isChunkLoadError } from './lazy.ts';

interface Props {
  /** What failed, in words, e.g. "The trace page". */
  what: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

/**
 * Catches a render error in one page so the shell (nav, other pages) keeps working and the user
 * sees what broke instead of a blank page. Keyed by route in the shell, so navigating resets it.
 * A page's code that failed to download (`ChunkLoadError`) gets a reload button instead of "Try
 * again": React.lazy keeps the failed load, and after a redeploy only a reload finds the new files.
 */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`${this.props.what} failed to render`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    if (isChunkLoadError(error)) {
      return (
        <div className="alert alert-error page-error" role="alert" data-testid="chunk-error">
          <strong>{this.props.what} could not be loaded.</strong>
          <p>
            Part of Baton did not download: the connection dropped, or Baton was updated since this tab was
            opened. Reloading the page fetches the current version.
          </p>
          <p className="mono">{error.message}</p>
          <div className="row">
            <button type="button" className="btn btn-primary" onClick={() => location.reload()}>
              Reload
            </button>
            <a className="btn btn-ghost" href="#/">
              Back to the gallery
            </a>
          </div>
        </div>
      );
    }
    return (
      <div className="alert alert-error page-error" role="alert">
        <strong>{this.props.what} failed to render.</strong>
        <p className="mono">{error.message}</p>
        <div className="row">
          <button type="button" className="btn" onClick={() => this.setState({ error: null })}>
            Try again
          </button>
          <a className="btn btn-ghost" href="#/">
            Back to the gallery
          </a>
        </div>
      </div>
    );
  }
}
