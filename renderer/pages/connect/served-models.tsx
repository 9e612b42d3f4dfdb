import { useModels } from '../../lib/queries.js';

/** Catalogue ids some line serves: the models a tool or snippet can be pointed at. */
export function useServedModels(): string[] {
  return (useModels().data ?? []).filter((m) => m.lines.length > 0).map((m) => m.id);
}

export function ModelOptions({ ids }: { ids: string[] }) {
  return (
    <>
      {ids.map((id) => (
        <option key={id} value={id}>
          {id}
        </option>
      ))}
    </>
  );
}
