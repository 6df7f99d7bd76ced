import { Command } from 'commander';

const program = new Command('loom').description('A desktop AI agent with durable sessions').version('0.1.0');
program.parse();
