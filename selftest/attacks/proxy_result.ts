/**
 * Proxies as results. softmax: a Proxy that answers the right shape and, for data, a Proxy over
 * zeros; scaledDotProductAttention: a Proxy whose every trap throws; causalMask: a revoked Proxy;
 * multiHeadSelfAttention: a Proxy over zeros that claims to be a Tensor. Every test must fail or be
 * an error, and earn nothing.
 */
import { Tensor } from '../../lib/tensor';
import { wrongAnswers } from './kit';

const zeros = wrongAnswers(0);
const refuse = (): never => {
  throw new Error('you may not look');
};

export function softmax(x: Tensor): unknown {
  const { shape, data } = zeros.softmax(x);
  return new Proxy({}, { get: (_target, key) => (key === 'shape' ? shape : key === 'data' ? new Proxy(data, {}) : undefined) });
}

export function scaledDotProductAttention(): unknown {
  const traps = ['get', 'has', 'getPrototypeOf', 'ownKeys', 'getOwnPropertyDescriptor'];
  return new Proxy({}, Object.fromEntries(traps.map((trap) => [trap, refuse])));
}

export function causalMask(): unknown {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

export function multiHeadSelfAttention(x: Tensor): unknown {
  return new Proxy(zeros.multiHeadSelfAttention(x), { getPrototypeOf: () => Tensor.prototype });
}
