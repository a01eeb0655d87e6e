// How every command prints a count: with thousands separators, the same in every command, so
// "1,234,567 rows" in one reads like "1,234,567 exported" in the next. Values a user types back
// (flag defaults in --help, ports, ids) stay plain.

export function countText(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
}
