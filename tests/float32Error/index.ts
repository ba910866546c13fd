/** The float32 error model of this assignment's functions (docs/float32-error.md), one bound per output element. */
export { attentionBound } from './attention';
export { multiHeadBound } from './multiHead';
export { softmaxBound } from './softmax';
