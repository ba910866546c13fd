/**
 * The notes of a result (its `feedback`), bounded whatever the submission does. A note is written
 * into the result's JSON, its page and the gradebook, and a submission chooses how many it causes:
 * 1 MiB of `)` was one "syntax error" note per character, a 157 MB result. Notes of one kind (the
 * same words once the places and quoted names in them are set aside) are kept up to PER_KIND, then
 * one line says how many more there were; so are the notes in all, and each note's length.
 */

export const FEEDBACK_LIMITS = { perKind: 10, notes: 40, noteChars: 16_384 };

/** A note's kind: its words with numbers (lines, columns, counts) and quoted names set aside. */
export function feedbackKind(note: string): string {
  return note.slice(0, 400).replace(/"[^"\n]*"|`[^`\n]*`|'[^'\n]*'/g, '"…"').replace(/\d+/g, '#').replace(/\S*[/\\]\S*/g, '…');
}

function cut(note: string, max: number): string {
  return note.length <= max ? note : `${note.slice(0, max)}… (${note.length - max} more characters)`;
}

/** The notes as a result keeps them: at most `perKind` of a kind, `notes` in all, `noteChars` each. */
export function boundFeedback(feedback: readonly string[], limits = FEEDBACK_LIMITS): string[] {
  const kept: string[] = [];
  const shown = new Map<string, { count: number; last: number; more: number }>();
  let over = 0;
  for (const note of feedback) {
    const kind = feedbackKind(note);
    const entry = shown.get(kind) ?? { count: 0, last: -1, more: 0 };
    shown.set(kind, entry);
    if (entry.count >= limits.perKind) entry.more++;
    else if (kept.length >= limits.notes) over++;
    else {
      entry.count++;
      entry.last = kept.length;
      kept.push(cut(note, limits.noteChars));
    }
  }
  // Each "more" line goes right after the last note of its kind, from the end so that indexes hold.
  const more = [...shown.values()].filter((e) => e.more > 0).sort((a, b) => b.last - a.last);
  for (const { more: n, last } of more) kept.splice(last + 1, 0, `… and ${n} more like the one above`);
  if (over) kept.push(`… and ${over} more notes`);
  return kept;
}
