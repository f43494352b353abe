import { describeMutantShard } from './mutation.ts';

describeMutantShard(0);
