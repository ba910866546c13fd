import { describe, expect, it } from 'vitest';
import { capturingConsole, FLOOD_PRINTS, floodWords, PrintCapture } from './printed';

describe('PrintCapture', () => {
  it('keeps what fits, cuts the print that crosses the cap, counts the rest without making their text', () => {
    const capture = new PrintCapture(10);
    const console = capturingConsole(capture);
    console.log('12345');
    console.log('6789abcdef');
    let made = 0;
    for (let i = 0; i < 3; i++) capture.print(() => String(++made));
    expect(made).toBe(0);
    expect(capture.take()).toBe('12345\n6789\n… 7 more characters of output not shown, 3 more prints not shown');
    expect(capture.take()).toBe('');
  });

  it('says a call flooded its output once it printed more than FLOOD_PRINTS times, and calls back once', () => {
    let notices = 0;
    const capture = new PrintCapture(100, () => notices++);
    for (let i = 0; i < FLOOD_PRINTS; i++) capture.print(() => 'x');
    expect(capture.flooded).toBe(false);
    for (let i = 0; i < 5; i++) capture.print(() => 'x');
    expect(capture.flooded).toBe(true);
    expect(notices).toBe(1);
    expect(capture.take()).toMatch(new RegExp(`${floodWords(FLOOD_PRINTS + 5).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('formats as console does: several arguments, objects, assert only when false', () => {
    const capture = new PrintCapture(1000);
    const console = capturingConsole(capture);
    console.log('a', 1, [2, 3]);
    console.assert(true, 'not shown');
    console.assert(false, 'shown');
    console.dir({ k: 1 });
    expect(capture.take()).toBe("a 1 [ 2, 3 ]\nAssertion failed: shown\n{ k: 1 }\n");
  });
});
