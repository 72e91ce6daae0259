// Number formats every part of section 4 uses (page numerals, via ctx.fmt).
//   formats(ctx) → {f(x, d = 4): at most d decimals, f6(x): exactly 6, pct(x): a percentage}

export function formats(ctx) {
  return {
    f: (x, d = 4) => ctx.fmt(x, { maximumFractionDigits: d }),
    f6: (x) => ctx.fmt(x, { minimumFractionDigits: 6, maximumFractionDigits: 6 }),
    pct: (x) => ctx.pct(x),
  };
}
