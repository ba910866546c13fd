/**
 * `npm run bench:variants`: every correct solution of the catalogue graded on the hidden cases
 * drawn for many submission names (`--variants`), to show that no draw fails a correct solution.
 * Its section of docs/benchmarks.md.
 */
export const VARIANTS_HEADING = '## Hidden cases drawn per submission';

export interface VariantsBench {
  draws: number;
  calls: number;
  failures: { implementation: string; drawnFor: string; test: string; message: string }[];
  implementations: string[];
  hiddenCases: number;
  seconds: number;
}

export function variantsSection(r: VariantsBench, footer: string): string[] {
  const failed = new Set(r.failures.map((f) => `${f.implementation} ${f.drawnFor}`)).size;
  return [
    VARIANTS_HEADING,
    '',
    `Every correct solution of the mistake catalogue (${r.implementations.map((n) => `\`${n}\``).join(', ')}) graded on the ` +
      `${r.hiddenCases} hidden cases drawn for ${r.draws.toLocaleString('en')} submission names (\`--variants\`: HMAC-SHA256 of a secret and the name), ` +
      `in process with the suite's own checks: ${r.calls.toLocaleString('en')} graded calls in ${r.seconds.toFixed(0)} s.`,
    '',
    `**${r.failures.length === 0 ? 'No draw failed a correct solution' : `${failed} of ${(r.draws * r.implementations.length).toLocaleString('en')} graded draws failed a correct solution`}.** ` +
      'Draws stay where float32 code written any reasonable way meets the tolerance: values and scores below 2048 in magnitude ' +
      '(a float32 exp(x − logsumexp(x)) rounds logsumexp to half a unit in the last place, under rtol = 1e-4 only below 2048), large scores made of ' +
      'integers exact in float32, float64 inputs of ordinary size.',
    ...(r.failures.length ? ['', '| solution | drawn for | test | message |', '| --- | --- | --- | --- |',
      ...r.failures.slice(0, 20).map((f) => `| ${f.implementation} | ${JSON.stringify(f.drawnFor)} | ${f.test} | ${f.message.replace(/\|/g, '\\|')} |`)] : []),
    '',
    footer,
  ];
}
