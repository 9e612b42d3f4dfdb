/**
 * Placeholders for content that is still loading, so a page that is fetching never reads as empty
 * ("No requests yet", "0 rows", "—" while the data is on its way). They are hidden from assistive
 * technology: the region that loads carries aria-busy instead. The shimmer stops for people who
 * ask for reduced motion (skeleton.css).
 */
import './skeleton.css';

/** One grey bar; `width` is a CSS length or a share such as '60%'. */
export function Skeleton({ width = '100%', height }: { width?: string; height?: string }) {
  return <span className="skeleton" aria-hidden="true" style={{ width, height }} />;
}

/** A few lines of text, the last one shorter, as a paragraph looks. */
export function SkeletonText({ lines = 3 }: { lines?: number }) {
  return (
    <span className="skeleton-text" aria-hidden="true">
      {Array.from({ length: lines }, (_, i) => (
        <Skeleton key={i} width={i === lines - 1 && lines > 1 ? '60%' : '100%'} />
      ))}
    </span>
  );
}

/** A block the size of a card or a chart, with a label for the busy region it stands in. */
export function SkeletonBlock({ height = '120px', label }: { height?: string; label: string }) {
  return (
    <div className="skeleton-block" role="status" aria-busy="true" aria-label={label}>
      <Skeleton height={height} />
    </div>
  );
}

/** Cell widths that vary by row and column, so skeleton rows look like rows of text. */
const WIDTHS = ['72%', '48%', '86%', '60%', '38%', '66%'];

/** `rows` table rows of `columns` cells each; numeric columns get short right-aligned bars. */
export function SkeletonRows({ rows, columns }: { rows: number; columns: { numeric?: boolean }[] }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} className="skeleton-row" aria-hidden="true">
          {columns.map((c, i) => (
            <td key={i} className={c.numeric ? 'num' : undefined}>
              <Skeleton width={c.numeric ? '48px' : WIDTHS[(r + i) % WIDTHS.length]} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}
