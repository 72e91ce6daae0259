// The languages the site is published in: the one place that knows them. The build
// (build-scripts/make-site.mjs, text-checks.mjs), the pages, the settings, the store and the
// number formatting all read this list; a new edition is one entry here plus its text folder
// web/text/<code>/ (web/README.md, "Adding a language"). No other file names a language.
//
// Fields:
//   code             BCP 47 language code: the folder (/fa/), <html lang>, text/<code>.json
//   autonym          the language's name in its own script (the language switch shows it)
//   dir              'rtl' | 'ltr' (<html dir>, and prose inside LTR widgets)
//   intlLocale       the locale Intl formats numbers and dates with
//   numberingSystem  its own digits (Intl names: 'arabext' ۰–۹, 'arab' ٠–٩, 'latn' 0–9);
//                    the reader's "Latin digits" setting switches to 'latn'
//   decimal, group   the separators Intl writes in those digits (a node test checks they
//                    agree with Intl, so they cannot drift from what the page shows)
//   font             the @fontsource package the pages use (vendor/fonts/<font>.css)
//   listSeparator    between the items of an inline list built by code
//   notANumber       what a NaN is shown as: `NaN`, the name the lessons explain (s5), not a
//                    translated word the text would have to explain as well
//   textLoadFailed   the one message shown when the language's text file cannot load
//                    (then no translated text exists to take it from)
//   modelFrom        (absent in a real edition) the edition whose trained character model and
//                    corpus this one's chapters 13–14 read (sections/model-compute.mjs
//                    modelLanguage); make-site sets it for a test-only edition, which has none
//   text             rules of the build's prose checks (build-scripts/text-checks.mjs):
//                    wrongLetters (look-alike letters of a neighbouring script, with a
//                    name for the error message), and termProclitics / termEndings (regular
//                    expressions for what may be attached to a term: the Arabic article
//                    and prepositions, the tanwin alif)
//
// The first entry is the default edition (an unknown or missing code falls back to it).

export const LANGUAGES = [
  {
    code: 'fa',
    autonym: 'فارسی',
    dir: 'rtl',
    intlLocale: 'fa',
    numberingSystem: 'arabext',
    decimal: '\u066b',
    group: '\u066c',
    font: 'vazirmatn',
    listSeparator: '، ',
    notANumber: 'NaN',
    textLoadFailed: 'متن صفحه بارگذاری نشد. صفحه را دوباره بارگذاری کنید.',
    text: {
      wrongLetters: { '\u064A': 'Arabic yeh ي (U+064A)', '\u0643': 'Arabic kaf ك (U+0643)' },
      termProclitics: '',
      termEndings: '',
    },
  },
  {
    code: 'ar',
    autonym: 'العربية',
    dir: 'rtl',
    intlLocale: 'ar',
    numberingSystem: 'arab',
    decimal: '\u066b',
    group: '\u066c',
    font: 'noto-naskh-arabic',
    listSeparator: '، ',
    notANumber: 'NaN',
    textLoadFailed: 'تعذّر تحميل نص الصفحة. أعد تحميل الصفحة.',
    text: {
      wrongLetters: { '\u06CC': 'Persian yeh ی (U+06CC)', '\u06A9': 'Persian keheh ک (U+06A9)' },
      termProclitics: '(?:[وف]?(?:[بلك]|ل?ل)?(?:ال)?)?',
      termEndings: '(?:\\u064B\\u0627|\\u0627\\u064B)?',
    },
  },
];

/** Every language code, in the registry's order. */
export const languageCodes = () => LANGUAGES.map((l) => l.code);

/** The default edition's code. */
export const defaultLanguage = () => LANGUAGES[0].code;

/** True when `code` is a published language (an own string, not an inherited name). */
export const isLanguage = (code) => typeof code === 'string' && LANGUAGES.some((l) => l.code === code);

/** The entry of `code`, or the default edition's when `code` is not a language. */
export function language(code) {
  return LANGUAGES.find((l) => l.code === code) ?? LANGUAGES[0];
}

/** The other editions (the language switch links to each). */
/**
 * The edition a browser's language list asks for (navigator.languages: 'ar-EG', 'fa-IR', 'en'…):
 * the first entry whose primary subtag is an edition's code, or null when none is. The chooser
 * puts that edition first when the reader has not chosen one yet.
 */
export function preferredLanguage(browserLanguages) {
  for (const tag of Array.isArray(browserLanguages) ? browserLanguages : []) {
    const primary = typeof tag === 'string' ? tag.split('-')[0].toLowerCase() : '';
    if (isLanguage(primary)) return primary;
  }
  return null;
}

export const otherLanguages = (code) => LANGUAGES.filter((l) => l.code !== language(code).code);

/** Intl locale for numbers in `code`, in its own digits or (latinDigits) in 0–9. */
export function numberLocale(code, latinDigits = false) {
  const l = language(code);
  return `${l.intlLocale}-u-nu-${latinDigits ? 'latn' : l.numberingSystem}`;
}

// The zero of each numbering system, read from Intl once (no code point tables per language).
const zeros = new Map();
/** Code point of the digit 0 in `code`'s own digits. */
export function digitZero(code) {
  const l = language(code);
  if (!zeros.has(l.code)) zeros.set(l.code, new Intl.NumberFormat(numberLocale(l.code)).format(0).codePointAt(0));
  return zeros.get(l.code);
}
