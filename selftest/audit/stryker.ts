/**
 * Stryker's mutants of a TypeScript source (@stryker-mutator/instrumenter, the mutation-testing
 * standard for TypeScript): its instrumenter lists every mutant with its place and replacement,
 * which become text edits like ours. Its string and regular-expression mutators change messages
 * and dtype names, not the computation, and are left out.
 */
import type { Edit, OperatorMutant } from './operators/operator';

// The instrumenter is an ES module; this project is CommonJS: a dynamic import loads it.
type Instrumenter = typeof import('@stryker-mutator/instrumenter', { with: { 'resolution-mode': 'import' } });
let loaded: Promise<Instrumenter> | undefined;

const SKIPPED = ['StringLiteral', 'Regex'];

/** A logger that keeps quiet: the instrumenter reports progress we do not show. */
const quiet = {
  isTraceEnabled: () => false, isDebugEnabled: () => false, isInfoEnabled: () => false, isWarnEnabled: () => false,
  isErrorEnabled: () => false, isFatalEnabled: () => false,
  trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {},
};

export async function strykerMutants(name: string, text: string): Promise<OperatorMutant[]> {
  const { Instrumenter } = await (loaded ??= import('@stryker-mutator/instrumenter'));
  const instrumenter = new Instrumenter(quiet as never);
  const result = await instrumenter.instrument([{ name, content: text, mutate: true }], { plugins: null, excludedMutations: SKIPPED, ignorers: [] });
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  // The API gives lines from 0, columns from 0.
  const offset = (p: { line: number; column: number }) => lineStarts[p.line] + p.column;
  return result.mutants.filter((m) => !SKIPPED.includes(m.mutatorName)).map((m) => {
    const edit: Edit = { start: offset(m.location.start), end: offset(m.location.end), text: m.replacement };
    return { operator: m.mutatorName, edits: [edit] };
  });
}
