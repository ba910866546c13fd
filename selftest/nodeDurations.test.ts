/**
 * Every duration the harness hands Node goes through nodeMs (lib/sandbox/nodeMs.ts), unless it is a
 * constant: node:vm once refused a computed limit of 8956.49 ms in the middle of a correct, slow
 * submission's run. The harness's own code (not its tests) is read with TypeScript, and every
 * place a duration reaches Node is checked: the delay of setTimeout and setInterval, and the
 * `timeout` given to node:vm's runs and to child_process.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';

const FOLDERS = ['lib', 'adapters', 'tests', 'scripts'];
const TIMERS = new Set(['setTimeout', 'setInterval']);
/** Calls whose options object may carry a `timeout` in ms. */
const TIMEOUT_OPTIONS = new Set(['runInThisContext', 'runInContext', 'runInNewContext', 'spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']);

function sources(): string[] {
  return FOLDERS.flatMap((folder) =>
    fs.readdirSync(path.join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.m?ts$/.test(f) && !/\.test\.m?ts$/.test(f) && !f.split(path.sep).includes('node_modules'))
      .map((f) => path.join(folder, f)));
}

/** A literal, a constant (SCREAMING_CASE, or a field of one), arithmetic of those, or nodeMs(…). */
function isSafe(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return isSafe(node.expression);
  if (ts.isNumericLiteral(node)) return true;
  if (ts.isIdentifier(node)) return /^[A-Z][A-Z0-9_]*$/.test(node.text);
  if (ts.isPropertyAccessExpression(node)) return /^[A-Z][A-Z0-9_]*$/.test(node.name.text);
  if (ts.isBinaryExpression(node)) return isSafe(node.left) && isSafe(node.right);
  if (ts.isCallExpression(node)) return ts.isIdentifier(node.expression) && node.expression.text === 'nodeMs';
  return false;
}

const calleeName = (call: ts.CallExpression): string | undefined =>
  ts.isIdentifier(call.expression) ? call.expression.text : ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : undefined;

/** Each duration in `file` that reaches Node neither constant nor through nodeMs, as `file:line: text`. */
export function rawDurations(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      if (name && TIMERS.has(name) && node.arguments.length > 1 && !isSafe(node.arguments[1])) report(node.arguments[1]);
      if (name && TIMEOUT_OPTIONS.has(name)) {
        for (const arg of node.arguments) {
          if (!ts.isObjectLiteralExpression(arg)) continue;
          for (const prop of arg.properties) {
            if (ts.isPropertyAssignment(prop) && prop.name.getText() === 'timeout' && !isSafe(prop.initializer)) report(prop.initializer);
            if (ts.isShorthandPropertyAssignment(prop) && prop.name.text === 'timeout') report(prop);
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('durations handed to Node', () => {
  it('are constants or go through nodeMs, in every file of the harness', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const texts = files.map((f) => [f, fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8')] as const);
    // Only the files that name a timer or a timeout are parsed: the rest cannot hand Node a duration.
    expect(texts.filter(([, text]) => /setTimeout|setInterval|timeout/.test(text)).flatMap(([f, text]) => rawDurations(f, text))).toEqual([]);
  });

  it('the check finds each kind of raw duration, and lets the safe ones by', () => {
    const code = [
      'setTimeout(f, limit);',
      'setInterval(f, Math.max(limit - spent, 20));',
      'script.runInThisContext({ timeout: limitMs, displayErrors: false });',
      'spawnSync(cmd, [], { timeout });',
      'setTimeout(f, 50); setTimeout(f, WALL_FACTOR * LIMIT_MS); setTimeout(f, nodeMs(limit)); spawnSync(cmd, [], { timeout: PROBE_LIMIT_MS });',
    ].join('\n');
    expect(rawDurations('x.ts', code).map((line) => line.replace(/^x\.ts:\d+: /, ''))).toEqual([
      'limit', 'Math.max(limit - spent, 20)', 'limitMs', 'timeout',
    ]);
  });
});
