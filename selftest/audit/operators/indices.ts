/**
 * Swapped and wrong indices: inside an index expression `a[…]`, two loop indices trade places
 * (`(b * nQ + i) * dK + c` → `(b * nQ + c) * dK + i`), or one index becomes another index in
 * scope (`j` for `i`). The indices are the names bound by the loops and callbacks around it.
 */
import ts from 'typescript';
import { identifiersIn, indexNames, nodes, type Edit, type Operator, type OperatorMutant } from './operator';

/** At most this many wrong-index mutants per index expression: the nearest indices first. */
const WRONG_PER_SITE = 2;

export const indices: Operator = {
  name: 'SwappedIndex',
  mutants: (file) =>
    nodes(file)
      .filter((n): n is ts.ElementAccessExpression => ts.isElementAccessExpression(n))
      .flatMap((access): OperatorMutant[] => {
        const scope = indexNames(access);
        const used = identifiersIn(access.argumentExpression).filter((id) => scope.includes(id.text));
        const names = [...new Set(used.map((id) => id.text))];
        const out: OperatorMutant[] = [];
        for (let x = 0; x < names.length; x++) {
          for (let y = x + 1; y < names.length; y++) {
            const edits: Edit[] = used.filter((id) => id.text === names[x] || id.text === names[y])
              .map((id) => ({ start: id.getStart(), end: id.getEnd(), text: id.text === names[x] ? names[y] : names[x] }));
            out.push({ operator: 'SwappedIndex', edits });
          }
        }
        for (const id of used) {
          const others = scope.filter((name) => name !== id.text && !names.includes(name)).slice(0, WRONG_PER_SITE);
          for (const other of others) out.push({ operator: 'WrongIndex', edits: [{ start: id.getStart(), end: id.getEnd(), text: other }] });
        }
        return out;
      }),
};
