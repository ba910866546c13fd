import { describe, expect, it } from 'vitest';
import { FetchError, parseRepositoryList } from './fetch';

describe('the list of student repositories', () => {
  it('one owner/name a line, named by the repository; blank lines and comments skipped', () => {
    expect(parseRepositoryList('# course\r\norg/attention-ada\n\n  org/attention.bo  \n', 'list.txt')).toEqual([
      { slug: 'org/attention-ada', name: 'attention-ada' },
      { slug: 'org/attention.bo', name: 'attention.bo' },
    ]);
  });

  it.each([
    ['org/ada\nhttps://github.com/org/bo', 'list.txt:2: "https://github.com/org/bo" is not owner/name of a GitHub repository; write one a line'],
    ['org/../etc', 'list.txt:1: "org/../etc" is not owner/name of a GitHub repository; write one a line'],
    ['org/..', 'list.txt:1: "org/.." is not owner/name of a GitHub repository; write one a line'],
    ['org/ada; rm -rf /', 'list.txt:1: "org/ada; rm -rf /" is not owner/name of a GitHub repository; write one a line'],
    ['one/ada\ntwo/Ada', 'list.txt:2: two/Ada and one/ada would both be the submission "Ada": list each repository once'],
    ['# nobody\n', 'list.txt lists no repository: write one owner/name a line'],
  ])('refuses %j in one line naming it', (text, message) => {
    expect(() => parseRepositoryList(text, 'list.txt')).toThrow(new FetchError(message));
  });
});
