// Rounding that analysts can reproduce: half away from zero on exact ratios of integers, so a
// value we print equals Excel's ROUND over the same inputs.

/** numerator / denominator rounded to `places` decimals; null when the denominator is 0. */
export function roundedRatio(numerator: number, denominator: number, places: number): number | null {
  if (denominator === 0) return null;
  const scale = 10 ** places;
  // For integer inputs the scaled quotient is exactly x.5 only when the true value is, so
  // Math.round is exact half-up here (all our inputs are non-negative).
  return Math.round((numerator * scale) / denominator) / scale;
}

/** A number rounded to `places` decimals (half away from zero), for values that are not ratios. */
export function roundTo(value: number, places: number): number {
  const scale = 10 ** places;
  return (Math.sign(value) * Math.round(Math.abs(value) * scale + Number.EPSILON)) / scale;
}
