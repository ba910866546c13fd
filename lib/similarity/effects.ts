/**
 * What running each expression and statement of a tree does, for normalise.ts: the similarity check
 * sets aside code by its effect, not by its spelling, so that no-op code of any shape hides nothing.
 *
 * An expression is pure when evaluating it assigns nothing and calls nothing a program wrote out:
 * literals, names, `this`, functions and arrows (made, not run), and of pure parts: `typeof`,
 * `void`, unary and binary operators, `a ? b : c`, `&&`, `||`, `??`, commas, array and object
 * literals, spreads, templates, property reads (`a.b`, `a[i]`), parentheses and type assertions.
 * Calls, `new`, tagged templates, assignments, `++`/`--`, `delete`, `await`, `yield` and class
 * expressions are not. What an operator, a property read or a template may run implicitly (a
 * getter, `valueOf`, `toString`, an iterator) is counted as nothing: code that relies on it for an
 * effect written as a statement of its own is no part of what a solution to an exercise does, and
 * counting it would let any `x.shape;` or `a + b;` hide a copy.
 *
 * A constant is a literal, or an operator on constants (`!0`, `1 > 2`, `void x`, `typeof x`), or
 * an array, object, function or regular expression (always truthy): its truthiness decides which
 * branch of an `if`, a loop, `?:`, `&&`, `||` or `??` ever runs.
 *
 * A statement is inert when running it does nothing: `;`, `debugger`, a pure expression, a block
 * of inert statements, `if` on a pure condition with inert branches (or the branch a constant
 * condition takes inert), a loop whose pure condition is constantly false, a labelled inert
 * statement.
 *
 * Worked out when asked, for the node and the operands its answer depends on only (a call is
 * impure whatever its arguments), each once, children first, on a stack of its own: a tree as deep
 * as a long chain (`a + a + … + a`, `a.b.c.…`) would overflow a recursive walk.
 */
import ts from 'typescript';
import { binaryValue, type Constant, fold, nullishOf, truthyOf, unaryValue } from './constants';

const K = ts.SyntaxKind;

interface Facts {
  /** For an expression: evaluating it does nothing; for a statement: running it does nothing (it is inert). */
  pure: boolean;
  value?: Constant;
  kept?: ts.Expression | ts.Statement;
}

export interface Effects {
  /** Whether evaluating the expression does nothing (false for what is not an expression). */
  pure(node: ts.Node): boolean;
  /** true or false when the expression's truthiness is known, undefined otherwise. */
  truthy(node: ts.Node): boolean | undefined;
  /** Whether running the statement does nothing (false for what is not a statement). */
  inert(node: ts.Node): boolean;
  /**
   * The one part a node comes to when its others do nothing or never run: the right of a comma
   * whose left is pure (`(0, f)`), the branch a pure constant condition takes (`1 ? a : b`, `if (0)
   * … else b`), the right of `&&`, `||` or `??` whose pure left hands it over (`1 && a`), the body of
   * `do … while (0)`, the statement of a label (a label does nothing but name it).
   */
  kept(node: ts.Node): ts.Expression | ts.Statement | undefined;
}

const LITERAL_KINDS = new Set([K.NumericLiteral, K.BigIntLiteral, K.StringLiteral, K.NoSubstitutionTemplateLiteral]);
const LOGICAL = new Set([K.AmpersandAmpersandToken, K.BarBarToken, K.QuestionQuestionToken]);
/** What passes an operand through unchanged. */
const SAME_VALUE = new Set([K.ParenthesizedExpression, K.AsExpression, K.SatisfiesExpression, K.TypeAssertionExpression, K.NonNullExpression,
  K.ExpressionWithTypeArguments]);
/** Made, not run: always truthy objects. */
const MADE = new Set([K.ArrowFunction, K.FunctionExpression, K.RegularExpressionLiteral]);
const LOOPS_ON_A_CONDITION = new Set([K.WhileStatement, K.ForStatement]);
const STATEMENTS = new Set([K.EmptyStatement, K.DebuggerStatement, K.ExpressionStatement, K.Block, K.LabeledStatement, K.IfStatement, K.DoStatement,
  ...LOOPS_ON_A_CONDITION]);
/** Operators whose operands decide nothing: the node is impure whatever they are. */
const IMPURE = new Set([K.CallExpression, K.NewExpression, K.TaggedTemplateExpression, K.DeleteExpression, K.AwaitExpression, K.YieldExpression,
  K.ClassExpression, K.PostfixUnaryExpression]);
const isAssignment = (node: ts.Node) => node.kind === K.BinaryExpression
  && (node as ts.BinaryExpression).operatorToken.kind >= K.FirstAssignment && (node as ts.BinaryExpression).operatorToken.kind <= K.LastAssignment;

/** The parts of `node` whose facts its own depend on. */
function operands(node: ts.Node): readonly (ts.Node | undefined)[] {
  if (IMPURE.has(node.kind) || isAssignment(node)) return [];
  switch (node.kind) {
    case K.PrefixUnaryExpression: return [(node as ts.PrefixUnaryExpression).operand];
    case K.BinaryExpression: return [(node as ts.BinaryExpression).left, (node as ts.BinaryExpression).right];
    case K.ConditionalExpression: {
      const { condition, whenTrue, whenFalse } = node as ts.ConditionalExpression;
      return [condition, whenTrue, whenFalse];
    }
    case K.ElementAccessExpression: return [(node as ts.ElementAccessExpression).expression, (node as ts.ElementAccessExpression).argumentExpression];
    case K.ArrayLiteralExpression: return (node as ts.ArrayLiteralExpression).elements;
    case K.ObjectLiteralExpression:
      return (node as ts.ObjectLiteralExpression).properties.flatMap((member) => {
        const name = (member as { name?: ts.PropertyName }).name;
        const value = ts.isPropertyAssignment(member) ? member.initializer : ts.isSpreadAssignment(member) ? member.expression : undefined;
        return [name?.kind === K.ComputedPropertyName ? name.expression : undefined, value];
      });
    case K.TemplateExpression: return (node as ts.TemplateExpression).templateSpans.map((span) => span.expression);
    case K.Block: return (node as ts.Block).statements;
    case K.LabeledStatement: return [(node as ts.LabeledStatement).statement];
    case K.IfStatement: {
      const { expression, thenStatement, elseStatement } = node as ts.IfStatement;
      return [expression, thenStatement, elseStatement];
    }
    case K.DoStatement: return [(node as ts.DoStatement).expression, (node as ts.DoStatement).statement];
    case K.WhileStatement: return [(node as ts.WhileStatement).expression];
    case K.ForStatement: {
      const { initializer, condition } = node as ts.ForStatement;
      return [condition, ...(initializer && ts.isVariableDeclarationList(initializer) ? initializer.declarations.map((d) => d.initializer) : [initializer])];
    }
    default:
      // One operand, where there is one: `typeof`, `void`, spreads, property reads, wrappers, an expression statement.
      return SAME_VALUE.has(node.kind) || [K.TypeOfExpression, K.VoidExpression, K.SpreadElement, K.SpreadAssignment, K.PropertyAccessExpression,
        K.ExpressionStatement].includes(node.kind) ? [(node as ts.ParenthesizedExpression).expression] : [];
  }
}

/** The effects of the nodes of one tree, each worked out when first asked. */
export function effects(): Effects {
  const facts = new Map<ts.Node, Facts>();
  // Read while working out a node, once its operands' facts are in.
  let kept: ts.Expression | ts.Statement | undefined;
  const pure = (node: ts.Node | undefined) => node === undefined || facts.get(node)!.pure;
  const valueOf = (node: ts.Node | undefined) => (node ? facts.get(node)!.value : undefined);
  const inert = pure;

  const expression = (node: ts.Node): Facts | undefined => {
    const kind = node.kind;
    if (LITERAL_KINDS.has(kind)) {
      const text = (node as ts.LiteralExpression).text;
      if (kind === K.NumericLiteral) return { pure: true, value: { primitive: Number(text) } };
      return { pure: true, value: kind === K.BigIntLiteral ? fold(() => BigInt(text.replace(/n$/, ''))) : { primitive: text } };
    }
    switch (kind) {
      case K.TrueKeyword: return { pure: true, value: { primitive: true } };
      case K.FalseKeyword: return { pure: true, value: { primitive: false } };
      case K.NullKeyword: return { pure: true, value: { primitive: null } };
      case K.Identifier:
        return (node as ts.Identifier).text === 'undefined' ? { pure: true, value: { primitive: undefined } } : { pure: true };
      case K.ThisKeyword:
      case K.SuperKeyword:
      case K.MetaProperty:
      case K.OmittedExpression:
        return { pure: true };
      case K.TypeOfExpression: {
        const operand = (node as ts.TypeOfExpression).expression;
        const value = valueOf(operand);
        // Whatever the operand, a name of a type: a string that is never empty, truthy as an object is.
        return { pure: pure(operand), value: value && 'primitive' in value ? { primitive: typeof value.primitive } : { object: true } };
      }
      case K.VoidExpression:
        return { pure: pure((node as ts.VoidExpression).expression), value: { primitive: undefined } };
      case K.PrefixUnaryExpression: {
        const { operator, operand } = node as ts.PrefixUnaryExpression;
        if (operator === K.PlusPlusToken || operator === K.MinusMinusToken) return { pure: false };
        return { pure: pure(operand), value: unaryValue(operator, valueOf(operand)) };
      }
      case K.BinaryExpression: {
        const { left, operatorToken, right } = node as ts.BinaryExpression;
        const operator = operatorToken.kind;
        if (operator >= K.FirstAssignment && operator <= K.LastAssignment) return { pure: false };
        if (operator === K.CommaToken) {
          if (pure(left)) kept = right;
          return { pure: pure(left) && pure(right), value: valueOf(right) };
        }
        if (LOGICAL.has(operator)) {
          const l = valueOf(left);
          // Whether the left is the value (the right never runs), or hands over to the right.
          const leftIsValue = operator === K.AmpersandAmpersandToken ? truthyOf(l) === false
            : operator === K.BarBarToken ? truthyOf(l) === true : nullishOf(l) === false;
          const handsOver = operator === K.AmpersandAmpersandToken ? truthyOf(l) === true
            : operator === K.BarBarToken ? truthyOf(l) === false : nullishOf(l) === true;
          if (handsOver && pure(left)) kept = right;
          return { pure: pure(left) && (leftIsValue || pure(right)), value: leftIsValue ? l : handsOver ? valueOf(right) : undefined };
        }
        return { pure: pure(left) && pure(right), value: binaryValue(operator, valueOf(left), valueOf(right)) };
      }
      case K.ConditionalExpression: {
        const { condition, whenTrue, whenFalse } = node as ts.ConditionalExpression;
        const taken = truthyOf(valueOf(condition));
        if (taken !== undefined && pure(condition)) kept = taken ? whenTrue : whenFalse;
        const branch = taken === undefined ? undefined : taken ? whenTrue : whenFalse;
        return { pure: pure(condition) && (branch ? pure(branch) : pure(whenTrue) && pure(whenFalse)), value: valueOf(branch) };
      }
      case K.PropertyAccessExpression:
        return { pure: pure((node as ts.PropertyAccessExpression).expression) };
      case K.ElementAccessExpression:
        return { pure: pure((node as ts.ElementAccessExpression).expression) && pure((node as ts.ElementAccessExpression).argumentExpression) };
      case K.SpreadElement:
      case K.SpreadAssignment:
        return { pure: pure((node as ts.SpreadElement).expression) };
      case K.ArrayLiteralExpression:
        return { pure: (node as ts.ArrayLiteralExpression).elements.every(pure), value: { object: true } };
      case K.ObjectLiteralExpression:
        return { pure: (node as ts.ObjectLiteralExpression).properties.every(pureMember), value: { object: true } };
      case K.TemplateExpression:
        return { pure: (node as ts.TemplateExpression).templateSpans.every((span) => pure(span.expression)) };
      default:
        if (MADE.has(kind)) return { pure: true, value: { object: true } };
        if (SAME_VALUE.has(kind)) {
          const inner = (node as ts.ParenthesizedExpression).expression;
          return { pure: pure(inner), value: valueOf(inner) };
        }
        return undefined;
    }
  };

  /** A member of an object literal: its computed key and its value pure (a method or accessor is made, not run). */
  const pureMember = (member: ts.ObjectLiteralElementLike): boolean => {
    const name = (member as { name?: ts.PropertyName }).name;
    if (name?.kind === K.ComputedPropertyName && !pure(name.expression)) return false;
    switch (member.kind) {
      case K.PropertyAssignment: return pure(member.initializer);
      case K.SpreadAssignment: return pure(member.expression);
      case K.ShorthandPropertyAssignment: return member.objectAssignmentInitializer === undefined;
      default: return true;
    }
  };

  const statement = (node: ts.Node): boolean => {
    switch (node.kind) {
      case K.EmptyStatement:
      case K.DebuggerStatement:
        return true;
      case K.ExpressionStatement:
        return pure((node as ts.ExpressionStatement).expression);
      case K.Block:
        return (node as ts.Block).statements.every(inert);
      case K.LabeledStatement:
        kept = (node as ts.LabeledStatement).statement;
        return inert((node as ts.LabeledStatement).statement);
      case K.IfStatement: {
        const { expression: condition, thenStatement, elseStatement } = node as ts.IfStatement;
        if (!pure(condition)) return false;
        const taken = truthyOf(valueOf(condition));
        const branch = taken === true ? thenStatement : taken === false ? elseStatement : undefined;
        kept = branch;
        return taken === undefined ? inert(thenStatement) && inert(elseStatement) : inert(branch);
      }
      case K.DoStatement: {
        const { expression: condition, statement: body } = node as ts.DoStatement;
        const once = pure(condition) && truthyOf(valueOf(condition)) === false;
        if (once) kept = body;
        return once && inert(body);
      }
      default:
        return LOOPS_ON_A_CONDITION.has(node.kind) && neverLoops(node as ts.WhileStatement | ts.ForStatement);
    }
  };

  /** A `while` or `for` whose pure condition is constantly false, and whose `for` initialiser does nothing outside the loop. */
  const neverLoops = (loop: ts.WhileStatement | ts.ForStatement): boolean => {
    const condition = loop.kind === K.WhileStatement ? loop.expression : loop.condition;
    if (!condition || !pure(condition) || truthyOf(valueOf(condition)) !== false) return false;
    const init = loop.kind === K.ForStatement ? loop.initializer : undefined;
    if (!init) return true;
    if (ts.isVariableDeclarationList(init)) {
      return (init.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== 0 && init.declarations.every((d) => pure(d.initializer));
    }
    return pure(init);
  };

  /** The facts of `node`, working out first those of the operands they depend on, each once. */
  const factsOf = (node: ts.Node): Facts => {
    const known = facts.get(node);
    if (known) return known;
    const stack: ts.Node[] = [node];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (facts.has(top)) {
        stack.pop();
        continue;
      }
      let ready = true;
      for (const operand of operands(top)) {
        if (operand && !facts.has(operand)) {
          stack.push(operand);
          ready = false;
        }
      }
      if (!ready) continue;
      stack.pop();
      kept = undefined;
      const found = IMPURE.has(top.kind) ? { pure: false } : expression(top) ?? { pure: statement(top) };
      facts.set(top, kept ? { ...found, kept } : found);
    }
    return facts.get(node)!;
  };

  return {
    pure: (node) => factsOf(node).pure,
    truthy: (node) => truthyOf(factsOf(node).value),
    inert: (node) => STATEMENTS.has(node.kind) && factsOf(node).pure,
    kept: (node) => (KEEPS.has(node.kind) && (node.kind !== K.BinaryExpression || KEEPING_OPERATORS.has((node as ts.BinaryExpression).operatorToken.kind))
      ? factsOf(node).kept : undefined),
  };
}

/** The kinds of node, and the operators, that may come to one of their parts (Effects.kept). */
const KEEPS = new Set([K.BinaryExpression, K.ConditionalExpression, K.IfStatement, K.DoStatement, K.LabeledStatement]);
const KEEPING_OPERATORS = new Set([K.CommaToken, ...LOGICAL]);
