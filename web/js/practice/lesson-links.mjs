// Where the lesson teaches each practice item: the one table that sends a learner from a
// flashcard, a quiz question, an exercise or a myth back to the lesson section (the
// section ids of web/pages/lesson.html: s1…s9, heads, window, kvcache for chapters
// 10–12, model and train for chapters 13–14) and, where it helps, the section's URL
// state (web/js/state.mjs: `<section>.<key>=value`) that shows the case asked about.
// Blocks call lessonTarget(kind, id); ui.mjs lessonLink() renders it. No DOM here, so
// tests/node can check that every item of the practice page has a target.

// [section, state?] — state keys are the section's own (s4 `dk`, s7 `n`…).
const S4_DK_DIVIDE = ['s4', { scale: 'dk' }];

export const LESSON_SECTIONS = {
  // cards.cNN (blocks/flashcards.mjs)
  cards: {
    c01: ['s1'], c02: ['s1'], c03: ['s2'], c04: ['s3'], c05: ['s2'], c06: ['s2'], c07: ['s2'],
    c08: ['s2'], c09: ['s2'], c10: ['s4'], c11: ['s4'], c12: ['s4', { dk: 128 }], c13: S4_DK_DIVIDE,
    c14: ['s4'], c15: ['s4'], c16: ['s4'], c17: ['s5'], c18: ['s5'], c19: ['s6'], c20: ['s6'],
    c21: ['s6'], c22: ['s6'], c23: ['s9'], c24: ['s7'], c25: ['s7', { n: 8192, dtype: 'fp16' }],
    c26: ['s7', { n: 32768, dtype: 'fp16' }], c27: ['s7', { n: 64, dtype: 'fp16' }], c28: ['s7'],
    c29: ['s7', { n: 131072, dtype: 'fp32' }], c30: ['s8'], c31: ['s8'], c32: ['s8'], c33: ['s8'],
    c34: ['s7'], c35: ['s2'],
    c36: ['heads'], c37: ['heads'], c38: ['heads'], c39: ['heads'], c40: ['window'], c41: ['window'],
    c42: ['kvcache'], c43: ['kvcache'], c44: ['kvcache'], c45: ['kvcache'], c46: ['kvcache'], c47: ['window'],
    c48: ['train'], c49: ['train'], c50: ['train'], c51: ['train'], c52: ['model'], c53: ['model'],
    c54: ['train'], c55: ['train'],
  },
  // quiz.qNN (multiple choice) and the numeric generators of generators.mjs QUIZ (blocks/quiz.mjs)
  quiz: {
    q01: ['s1'], q02: ['s6'], q03: ['s2'], q04: ['s2'], q05: ['s4'], q06: ['s4'], q07: ['s4'],
    q08: S4_DK_DIVIDE, q09: ['s5'], q10: ['s6'], q11: ['s6'], q12: ['s6'], q13: ['s7'], q14: ['s8'],
    q15: ['s8'], q16: ['s8'], q17: ['s2'], q18: ['s7', { n: 32768, dtype: 'fp16' }], q19: ['s4'], q20: ['s4'],
    q21: ['heads'], q22: ['window'], q23: ['kvcache'], q24: ['kvcache'],
    'softmax-two': ['s2'], 'shift-invariance': ['s5'], temperature: ['s4'], 'score-mb': ['s7'],
    'batch-bytes': ['s7'], 'uniform-entropy': ['s4'], 'scale-factor': ['s4'], 'max-weight-gap': ['s4'],
    'jacobian-two': ['s4'], 'sat-weight': ['s2'],
    'kv-cache-bytes': ['kvcache'], 'gqa-saved': ['heads'], 'window-reach': ['window'], 'decode-intensity': ['kvcache'],
    'char-loss': ['train'], 'sample-temperature': ['model'], 'model-weights': ['model'], 'backward-memory': ['train'],
  },
  // generators.mjs EXERCISES (blocks/try-yourself.mjs)
  ex: {
    'dot-score': ['s2'], 'scaled-score': ['s2'], 'softmax-weight': ['s2'], 'row-max-weight': ['s2'],
    'causal-uniform': ['s6'], 'causal-weight': ['s6'], 'weighted-average': ['s2'], 'score-bytes': ['s7'],
    'memory-growth': ['s7'], 'rescale-factor': ['s8'], 'running-sum': ['s8'], entropy: ['s4'], 'sat-score': ['s2'],
    'kv-cache-preset': ['kvcache'], 'window-field': ['window'], 'gqa-speedup': ['heads'],
    'uniform-loss': ['train'], 'ce-gradient': ['train'], 'previous-head': ['model'],
  },
  // myth.mNN (blocks/myth-fact.mjs)
  myth: {
    m01: ['s4'], m02: ['s8'], m03: ['s6'], m04: ['s7'], m05: ['s5'], m06: ['s8'], m07: ['s2'],
    m08: ['s4'], m09: S4_DK_DIVIDE, m10: ['s6'],
    m11: ['kvcache'], m12: ['heads'], m13: ['window'],
    m14: ['model'], m15: ['train'], m16: ['model'],
  },
};

/**
 * {section, href} for a practice item, or null when the table has none. href is relative
 * to the practice page (both pages sit in the same edition folder): index.html?s4.dk=128#s4.
 */
export function lessonTarget(kind, id) {
  const entry = LESSON_SECTIONS[kind]?.[id];
  if (!entry) return null;
  const [section, state = {}] = entry;
  const query = new URLSearchParams(Object.entries(state).map(([k, v]) => [`${section}.${k}`, String(v)])).toString();
  return { section, href: `index.html${query ? `?${query}` : ''}#${section}` };
}
