import { useCallback } from 'react';
import { useBaton } from '../../store/store.ts';
import { navigate, traceHash } from './route.ts';

/** Imports files through the store and opens the first imported trace. */
export function useFileImport(): (files: readonly File[]) => void {
  const importFiles = useBaton((s) => s.importFiles);
  return useCallback(
    (files: readonly File[]) => {
      if (files.length === 0) return;
      void importFiles(files).then((id) => {
        if (id) navigate(traceHash(id));
      });
    },
    [importFiles],
  );
}
