/** Words for a chart bucket: an axis tick, or the tooltip's heading with the bucket's span. */
const pad = (n: number): string => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const hm = (d: Date): string => `${pad(d.getHours())}:${pad(d.getMinutes())}`;
const day = (d: Date): string => `${WEEKDAYS[d.getDay()]} ${d.getDate()} ${MONTHS[d.getMonth()]}`;

/**
 * An hour's tick is its time (with the date at midnight, where the day changes); a day's is its
 * date. The tooltip's heading names the weekday, and an hour's span.
 */
export function bucketText(start: number, bucket: 'hour' | 'day', form: 'tick' | 'long', end?: number): string {
  const d = new Date(start);
  if (form === 'tick') {
    if (bucket === 'day') return `${d.getDate()} ${MONTHS[d.getMonth()]}`;
    return d.getHours() === 0 ? `${d.getDate()} ${MONTHS[d.getMonth()]}` : hm(d);
  }
  if (bucket === 'day') return `${day(d)} ${d.getFullYear()}`;
  return `${day(d)}, ${hm(d)}–${end === undefined ? '' : hm(new Date(end))}`;
}
