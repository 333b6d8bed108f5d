export { answerKey, isRefusal } from './agreement.ts';
export {
  extractBoxed,
  lastBoxed,
  lastBoxedFromEnd,
  matchingBrace,
  scanBoxes,
  type BoxScanOptions,
} from './boxed.ts';
export {
  CHOICE_LETTERS,
  extractAnswerPhrase,
  extractChoice,
  extractFinalNumber,
  extractNumbers,
  normalizeChoice,
} from './extract.ts';
export {
  NUMERIC_TOLERANCE,
  isNumericAnswer,
  mathEqual,
  normalizeMathAnswer,
  numbersClose,
  parseNumber,
} from './math.ts';
export { extractMultiAnswers, splitAnswers, splitTopLevel, type MultiExtraction } from './multi.ts';
export { lenientCorrect, normalizeLenient, plainNumber } from './lenient.ts';
export { exactMatch, normalizeQaAnswer, tokenF1 } from './qa.ts';
export {
  DEFAULT_F1_THRESHOLD,
  checkAnswer,
  resolveMode,
  type CheckMode,
  type CheckOptions,
  type CheckResult,
  type GroundTruth,
} from './check.ts';
