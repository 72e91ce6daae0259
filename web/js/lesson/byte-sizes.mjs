// Exact byte counts of score matrices (BigInt) and how to read them in a unit.
// A double holds integers exactly only up to 2^53: section 7's largest case,
// n = 4,194,304 with 256 heads, 256 layers, batch 1024 and fp32, is 2^72 bytes,
// and as a Number it printed "…869,645,000,000" instead of "…869,645,213,696".
// No DOM, no prose: the page puts `number` into its unit key (site.unit.<unit>).
//
// Usage:
//   const b = scoreBytes({ n: 131072, bytesPerElement: 4 });   // 68719476736n
//   readable(b, 'decimal')  // { unit: 'GB', value: 68.719…, fractionDigits: 1 }
//   readable(b, 'binary')   // { unit: 'GiB', value: 64, fractionDigits: 0 }
// The unit is the largest one the count reaches (so never "0 MB"), up to EB / EiB;
// the value keeps three significant digits or more (4.72, 68.7, 134, 4,722).

export const DECIMAL_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'];
export const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

const toBig = (name, x) => {
  if (typeof x === 'bigint') return x;
  if (!Number.isSafeInteger(x) || x < 0) throw new RangeError(`scoreBytes: ${name} must be a whole number >= 0, got ${x}`);
  return BigInt(x);
};

/** n²·bytesPerElement·heads·layers·batch, exactly (the formula of engine.scoreMatrixBytes). */
export function scoreBytes({ n, bytesPerElement, heads = 1, layers = 1, batch = 1 }) {
  const nn = toBig('n', n);
  return nn * nn * toBig('bytesPerElement', bytesPerElement) * toBig('heads', heads) * toBig('layers', layers) * toBig('batch', batch);
}

// fraction digits that keep at least three significant digits
const digitsFor = (v) => (v < 10 ? 2 : v < 100 ? 1 : 0);
const round = (v, fd) => Math.round(v * 10 ** fd) / 10 ** fd;

/**
 * bytes (BigInt or a safe integer) in the largest unit of the system it reaches:
 * {unit, value (Number), fractionDigits}. A value that rounds up to the next unit
 * ("1,000 KB") is given in that unit instead.
 */
export function readable(bytes, system = 'decimal') {
  const b = toBig('bytes', bytes);
  const units = system === 'binary' ? BINARY_UNITS : DECIMAL_UNITS;
  const base = system === 'binary' ? 1024n : 1000n;
  let i = 0;
  while (i + 1 < units.length && b >= base ** BigInt(i + 1)) i++;
  // value = b / base^i with the integer part exact and a double fraction (b can pass 2^53)
  const size = base ** BigInt(i);
  let value = Number(b / size) + Number(b % size) / Number(size);
  let fd = digitsFor(value);
  if (i + 1 < units.length && round(value, fd) >= Number(base)) {
    i++;
    value /= Number(base);
    fd = digitsFor(value);
  }
  return { unit: units[i], value, fractionDigits: i === 0 ? 0 : fd };
}
