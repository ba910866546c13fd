/**
 * Which attacks each containment setting must grade again. attacks.test.ts grades every attack in
 * this machine's setting; settings.test.ts grades, in each of the others, the attacks whose end the
 * setting can change, and only those:
 * - an attack whose source reaches past the answers it returns (Node's modules, the process, the
 *   globals its realm shares): the layers in force stand between it and what it reaches;
 * - an attack held by a limit (time, memory): each setting stops a child its own way (a PID
 *   namespace, a uid of its own, the grader's own user);
 * - an attack some setting cannot contain (expectations.ts, UNCONTAINED's reasons).
 * Every other attack only returns answers, throws, or writes its channel (fd 3, the socket every
 * setting hands a child alike), which the grader's own code reads the same way in every setting:
 * graded once is graded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expectationsFor, type Expectation, type Setting } from './expectations';
import { NESTING_LAYOUTS } from './nesting';

export const SETTINGS: readonly Setting[] = ['namespaces', 'own-uids', 'user-namespaces', 'same-user'];

/** Each setting's expectations, made once (whether the syscall filter is in force is found by running it). */
let expected: Map<Setting, Record<string, Expectation>> | undefined;
export const expectationsIn = (setting: Setting): Record<string, Expectation> =>
  (expected ??= new Map(SETTINGS.map((s) => [s, expectationsFor(s)]))).get(setting)!;

/** The names by which code reaches past its answers of its own: the process object, any require or dynamic import, the global object. */
const OWN_REACH = /\b(process|require|globalThis)\b|\bimport\s*\(/;

/** Code without its comments and the contents of its quoted strings: they do nothing (a template's parts may). */
const codeOf = (source: string): string =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '').replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");

/** The kit's route to the channel the child answers on, and only to it: what goes through it the grader reads as it reads answers. */
const CHANNEL_ONLY = ['writeChannel'];

/**
 * The kit's exports (attacks/kit.ts) through which an attack reaches past its answers: those whose
 * code reaches itself or uses another of the kit's declarations that does (nodeModule through its
 * routes, findUpwards through nodeModule…), but the route to the channel. Read from the kit, so that
 * a helper added there is counted without a list to keep.
 */
export function reachingKitExports(kit = fs.readFileSync(path.join(__dirname, 'kit.ts'), 'utf8'), channelOnly = CHANNEL_ONLY): string[] {
  const declarations = codeOf(kit).split(/\n(?=(?:export )?(?:function|const|let|type|interface) )/).flatMap((part) => {
    const found = /^(export )?(?:function|const|let|type|interface) (\w+)/.exec(part);
    return found ? [{ name: found[2], exported: Boolean(found[1]), body: part.slice(found[0].length) }] : [];
  });
  const uses = (body: string, name: string) => new RegExp(`\\b${name}\\b`).test(body);
  const reaching = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    for (const { name, body } of declarations) {
      if (reaching.has(name) || channelOnly.includes(name) || !(OWN_REACH.test(body) || [...reaching].some((other) => uses(body, other)))) continue;
      reaching.add(name);
      grew = true;
    }
  }
  return declarations.filter((d) => d.exported && reaching.has(d.name)).map((d) => d.name).sort();
}

/** What in an attack's source reaches past its answers ('' for nothing): its own reach, or a kit export that reaches. */
export function reachIn(source: string, kitExports: readonly string[] = reachingKitExports()): string {
  const code = codeOf(source);
  const own = OWN_REACH.exec(code)?.[0];
  return own ?? kitExports.find((name) => new RegExp(`\\b${name}\\b`).test(code)) ?? '';
}

/** An attack that must meet a limit to end: every way it may end is a limit's (a timeout, the memory cap's crash), or it is graded with limits of its own. */
const heldByALimit = (e: Expectation): boolean =>
  Boolean(e.alone || e.timeoutMs || e.budgeted) || (e.statuses.length > 0 && e.statuses.every((s) => s === 'timeout' || s === 'crashed'));

/** Why the setting can change how attack `name` ends, or '' when it cannot. */
export function whySettingMatters(name: string): string {
  const source = fs.readFileSync(path.join(__dirname, `${name}.ts`), 'utf8');
  const reached = reachIn(source);
  if (reached) return `it reaches past its answers (${reached})`;
  const each = SETTINGS.map((setting) => expectationsIn(setting)[name]);
  if (each.some(heldByALimit)) return 'a limit holds it';
  if (each.some((e) => e.mayPass)) return 'a setting cannot contain it';
  return '';
}

/** The attacks a setting other than this machine's grades again (see above). */
export function attacksTheSettingMayChange(attacks: readonly string[]): string[] {
  return attacks.filter((name) => whySettingMatters(name) !== '');
}

/**
 * The folder layouts (attacks/layouts.ts) a setting other than this machine's grades again: those
 * the intake decides by reading the folder, as the grader's user. The nesting layouts are decided
 * by their text alone, in the transpiling processes (lib/sandbox/transpilePool.ts), which the grader
 * starts as plain children in every setting: graded once, in attacks.test.ts, is graded.
 */
export function layoutsTheSettingMayChange(layouts: readonly string[]): string[] {
  return layouts.filter((name) => !(name in NESTING_LAYOUTS));
}
