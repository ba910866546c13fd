import { gradedTests } from './graded';

gradedTests('causal_mask');
