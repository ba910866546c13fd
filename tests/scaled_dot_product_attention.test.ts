import { gradedTests } from './graded';

gradedTests('scaled_dot_product_attention');
