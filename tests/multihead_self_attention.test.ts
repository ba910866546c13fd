import { gradedTests } from './graded';

gradedTests('multihead_self_attention');
