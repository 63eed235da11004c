USE d;
CREATE SEQUENCE `s1` start with 10 minvalue 1 maxvalue 9223372036854775806 increment by 5 cache 2 nocycle ENGINE=InnoDB;
