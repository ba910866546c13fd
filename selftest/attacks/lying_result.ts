/**
 * Results whose properties lie or throw, hoping the grader reads them twice and checks one reading
 * while scoring another. softmax: the shape getter gives the right shape once, then [1]; the data
 * getter throws. scaledDotProductAttention: data is an array whose first element is a throwing
 * getter. causalMask: the right shape once then [0], zeros for data. multiHeadSelfAttention: zeros
 * that carry their own verdict (passed, points, score). Every test must fail or be an error, and
 * earn nothing.
 */
import type { Tensor } from '../../lib/tensor';
import { filled, wrongAnswers } from './kit';

function shapeOnceThen(first: readonly number[], then: number[]): () => number[] {
  let reads = 0;
  return () => (reads++ === 0 ? [...first] : then);
}

export function softmax(x: Tensor): unknown {
  const shape = shapeOnceThen(x.shape, [1]);
  return {
    get shape() {
      return shape();
    },
    get data(): never {
      throw new Error('data is not for reading');
    },
  };
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor): unknown {
  const { shape, data } = wrongAnswers(0).scaledDotProductAttention(Q, K, V);
  const values = Array.from(data);
  Object.defineProperty(values, 0, {
    get(): never {
      throw new Error('element 0 is not for reading');
    },
  });
  return { shape, data: values };
}

export function causalMask(seqLen: number): unknown {
  const shape = shapeOnceThen([seqLen, seqLen], [0]);
  return {
    get shape() {
      return shape();
    },
    data: new Uint8Array(seqLen * seqLen),
  };
}

export function multiHeadSelfAttention(x: Tensor): unknown {
  return { ...filled(x.shape, 0), passed: true, status: 'passed', points: 2, score: 12, maxScore: 12 };
}
