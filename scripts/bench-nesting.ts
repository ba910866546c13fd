/**
 * npm run bench:nesting: how deep oxc and TypeScript parse each kind of nesting before they
 * overflow their stack, against the nesting bound (lib/bench/parserLimits.ts); prints the table.
 */
import { describeMachine, machine } from '../lib/bench/measure';
import { measureParserLimits, parserLimitsTable } from '../lib/bench/parserLimits';

console.log(`machine: ${describeMachine(machine())}`);
console.log(parserLimitsTable(measureParserLimits()).join('\n'));
