-- @@ generic
-- Hand-collected statements that formatters tend to get wrong. Blocks are separated by
-- "-- @@ <dialect>" lines; each block is formatted under every option by
-- src/tools/sql/property.rs, which checks that its tokens survive.
SELECT 3.5E12, 1e-3, 2E+5, .5, 7., 1.5e10 FROM t
-- @@ generic
select e.end, e.select, e.order, x.from, t.case from events e
-- @@ generic
select * from a natural join b natural left join c natural full outer join d cross join e
-- @@ generic
insert into t (a, b, c) values (1, 'x', null),(2, 'y', 3.5E2), (3, 'z', -1)
-- @@ generic
with recursive r (n) as (select 1 union all select n + 1 from r where n < 10), s as (select * from r) select * from s
-- @@ generic
select id from events where name = 'value' and data is not null and year between 2020 and 2024
-- @@ generic
SELECT a, -- first
  b /* second */, c
FROM t -- table
WHERE x = 1 -- last
-- @@ generic
select 'it''s -- not a comment', '/* nor this */' from t -- but this is
-- @@ generic
select case when a = 1 then 'one' when a = 2 then 'two' when a = 3 then 'three' else 'many' end as label from t
-- @@ generic
select case x when 1 then case y when 2 then 'a' else 'b' end else 'c' end from t
-- @@ generic
select count(*), count (distinct a), sum(b) over (partition by c order by d rows between unbounded preceding and current row) from t group by c having count(*) > 1 order by 1 desc limit 10 offset 20
-- @@ generic
update users set name = 'x', status = -1 where id in (select user_id from orders where amount > 1e3)
-- @@ generic
delete from events where id = ? or id = :id or id = $1 or id = @id
-- @@ generic
select a from t where b is distinct from c and d is not distinct from e
-- @@ generic
create table events (id int primary key, name varchar(100) not null, value numeric(10, 2) default 0.0, created timestamp)
-- @@ generic
select a from t union select b from u union all select c from v intersect select d from w except select e from x
-- @@ generic
select ((((1)))), (a + (b * (c - d))) from t
-- @@ generic
select * from (select * from (select 1 as x) a) b
-- @@ generic
select 1; select 2;; select 3
-- @@ generic
SELECT x FROM t WHERE a = 'line1
line2' AND b = "quoted ""name"""
-- @@ generic
select a
from t
where c = 1;
-- trailing comment
-- @@ generic
select `weird name`, "other""name" from t
-- @@ generic
select a--comment right after
from t
-- @@ generic
select a from t where x in (1,2,3) and not exists (select 1 from u where u.id = t.id)
-- @@ generic
select u&'d\0061t', U&"d\0061t" uescape '!', n'nat', x'4142', b'101', e'esc\'d' from t
-- @@ postgresql
select $$ a   b $$, $fn$ select  1; 'x' $fn$, $a$ $b$ nested $b$ $a$ from t
-- @@ postgresql
create function f() returns int as $body$
begin
  return    1;  -- keep   me
end;
$body$ language plpgsql
-- @@ postgresql
select x::int, y::text[], arr[1], arr[1:2], j->'k', j->>'k', j#>'{a,b}', j @> '{}', a <@ b from t
-- @@ postgresql
select U&'d\0061t\+000061', U&"d\0061t", E'\'quoted\'' from t
-- @@ postgresql
select a from t /* outer /* inner */ still comment */ where b = 1
-- @@ postgresql
select a=-1, b<-2, c||-3, d*-4, e !~* 'x', f ~~ 'y' from t
-- @@ postgresql
insert into t values (1) on conflict (id) do update set v = excluded.v returning id
-- @@ postgresql
select * from only events e join lateral (select * from f(e.id)) x on true
-- @@ postgresql
select $1, $2::int from t where a = $3
-- @@ postgresql
select e.end, events.user, t.window from events e
-- @@ mysql
select `order`, `a``b`, "dq \" string", 'sq \' string', 'x''y' from `events`
-- @@ mysql
select a # hash comment
from t -- dash comment
where b = 1
-- @@ mysql
select a--1 from t
-- @@ mysql
select 1abc, 0x1F, X'4142', b'101', @v, @@session.sql_mode, _utf8mb4'x' from t1
-- @@ mysql
insert into events (a, b) values (1, 2), (3, 4) on duplicate key update b = values(b)
-- @@ mysql
select count(*), left(name, 3), replace(a, 'x', 'y') from events where data <=> null
-- @@ mysql
select * from t limit 5, 10
-- @@ mysql
/*!40101 SET NAMES utf8 */; select 1
-- @@ sqlite
select [my col], `other`, "std", x'4142' from [my table] where a = ?1 and b = :n and c = @n and d = $n
-- @@ sqlite
insert or replace into t (a) values (1); insert or ignore into t values (2)
-- @@ sqlite
create table t (id integer primary key autoincrement, name text collate nocase)
-- @@ sqlserver
select top 10 * from #temp t join ##global g on g.id = t.id where t.x = @p and @@ROWCOUNT > 0
-- @@ sqlserver
select [order], [a]]b], N'ünï', 0x1F from [dbo].[events] with (nolock)
-- @@ sqlserver
select a from t /* outer /* inner */ still */ cross apply f(t.id) outer apply g(t.id)
-- @@ sqlserver
create table #temp (id int, name nvarchar(50)); insert into #temp values (1, N'x'), (2, N'y')
-- @@ sqlserver
declare @n int = 5; set @n = @n + 1; select @n
-- @@ sqlserver
select a from t order by a offset 10 rows fetch next 5 rows only
-- @@ plsql
select q'[it's]', q'{a}b}', nq'<x>', N'nat' from dual where a = :bind
-- @@ plsql
select a#b, c$d from t minus select e, f from u
-- @@ plsql
begin
  update t set a = 1 where b = :x;
  commit;
end;
-- @@ plsql
select a from t where rownum <= 10 order by a fetch first 5 rows only
-- @@ bigquery
select * except (a, b), * replace (c as d) from `my-project.ds.events` where x = @param
-- @@ bigquery
select '''tri ' ple''', """dq "" x""", r'raw\d', b'bytes', rb'\x00', "dq \" esc" from t
-- @@ bigquery
select a # hash comment
from t
qualify row_number() over (partition by a order by b) = 1
-- @@ bigquery
select a from t union distinct select b from u union all select c from v except distinct select d from w
-- @@ bigquery
select struct(1 as a, 'x' as b), [1, 2, 3], array<int64>[1] from t
-- @@ generic
select a, b, c from t where a = 1 and (b = 2 or c = 3) and d like '%x%' escape '\'
-- @@ generic
select
  a
  , b
from t
-- @@ generic
select a from t where x = -1 and y = +2 and z = - -3 and w = ~4
-- @@ generic
select a.b.c, a . b, t.* from t
-- @@ generic
select case when a then b end, case when c then d end from t
-- @@ generic
select 1 from t where a between 1 and 2 and b between 3 and 4 or c = 5
-- @@ generic
values (1, 2), (3, 4)
-- @@ generic
select * from t where a in (select b from u union select c from v)
