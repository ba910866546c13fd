import { describe, expect, it } from 'vitest';
import { deadLinks } from './release';

const handout = (files: Record<string, string>) => new Map(Object.entries(files).map(([file, text]) => [file, Buffer.from(text)]));

describe('deadLinks: every relative link of the handout\'s Markdown reaches a shipped file', () => {
  const shipped = { 'docs/students.md': '# Students\n', 'docs/report-submission.png': 'png', 'student/index.ts': '', 'README.md': '' };

  it.each([
    ['a page beside it', '[the guide](docs/students.md)'],
    ['a picture', '![the page](docs/report-submission.png)'],
    ['an anchor of another page', '[rules](docs/students.md#semantics)'],
    ['an anchor of its own page', '[tables](#for-students)'],
    ['a folder that holds shipped files', '[your folder](student/)'],
    ['a web address', '[CS336](https://stanford-cs336.github.io/) and [mail](mailto:ta@example.org)'],
    ['a path that walks back into the handout', '[guide](student/../docs/students.md)'],
  ])('passes %s', (_, link) => {
    expect(deadLinks(handout({ ...shipped, 'README.md': `# A\n\n${link}\n` }))).toEqual([]);
  });

  it.each([
    ['a page not shipped', '[more](docs/instructors.md)', 'README.md links docs/instructors.md'],
    ['a picture not shipped', '![batch](docs/report-batch.png)', 'README.md links docs/report-batch.png'],
    ['an anchor of a page not shipped', '[late](docs/late-policy.md#extensions)', 'README.md links docs/late-policy.md#extensions'],
    ['an empty folder', '[answers](reference/)', 'README.md links reference/'],
    ['a path that leaves the handout', '[up](../README.md)', 'README.md links ../README.md'],
  ])('names %s', (_, link, said) => {
    expect(deadLinks(handout({ ...shipped, 'README.md': `# A\n\nSee ${link} and [ok](docs/students.md).\n` }))).toEqual([said]);
  });

  it('reads each page from where it is: a guide in docs/ links the README one folder up', () => {
    expect(deadLinks(handout({ ...shipped, 'docs/students.md': '[back](../README.md#for-students) [pic](report-submission.png)' }))).toEqual([]);
    expect(deadLinks(handout({ ...shipped, 'docs/students.md': '[back](README.md)' }))).toEqual(['docs/students.md links README.md']);
  });

  it('reads only Markdown: a link-like text in code is not a page', () => {
    expect(deadLinks(handout({ ...shipped, 'student/index.ts': 'const a = b[0](c);' }))).toEqual([]);
  });
});
