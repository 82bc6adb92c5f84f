import { expect } from 'chai';
import { reorderedCreateSql } from '../../../db/migrations/0018-run-row-order.js';

describe('reorderedCreateSql (migration 0018)', () => {
  it('moves the long texts and then the definition after every other column, keeping the constraints last', () => {
    const { sql, columns } = reorderedCreateSql(
      'CREATE TABLE "workflow_runs" ("id" varchar(36), `definition` text not null, [message] text, ' +
        "`note` varchar(20) default 'a, (b)', `cost` decimal(12, 6) not null default '0', `inputs` text, " +
        'foreign key(`note`) references `notes`(`id`) on delete SET NULL, primary key (`id`))',
      'rebuilt',
    );
    expect(columns).to.deep.equal(['id', 'note', 'cost', 'message', 'inputs', 'definition']);
    expect(sql).to.equal(
      'CREATE TABLE `rebuilt` ("id" varchar(36), `note` varchar(20) default \'a, (b)\', ' +
        "`cost` decimal(12, 6) not null default '0', [message] text, `inputs` text, `definition` text not null, " +
        'foreign key(`note`) references `notes`(`id`) on delete SET NULL, primary key (`id`))',
    );
  });
});
