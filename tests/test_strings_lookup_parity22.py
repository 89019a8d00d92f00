"""Text preprocessing programs (tf.strings, lookup tables, CSV and raw decoding) checked against
what TF 1.15 prints for the same program; expected values come from running TF 1.15."""

import pytest

import tideflow as tf

L = tf.contrib.lookup


def test_oov_table_size_is_an_add_named_as_tf():
    # TF 1.15: size() of a table with oov buckets is `table.size() + n` under "<name>_Size",
    # and without a table a Const 0 plus n
    with tf.Graph().as_default() as g:
        t = L.index_table_from_tensor(["a", "b"], num_oov_buckets=3)
        buckets = L.IdTableWithHashBuckets(None, num_oov_buckets=5)
        n, m = t.size(), buckets.size()
        assert n.name == "hash_table_Size/add:0" and n.op.type == "AddV2"
        assert m.name == "hash_bucket_Size/add:0"
        assert [op.name for op in g.get_operations() if op.name.startswith("hash_bucket_Size")] \
            == ["hash_bucket_Size/Const", "hash_bucket_Size/add/y", "hash_bucket_Size/add"]
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run([n, m]) == [5, 5]


def test_index_tables_are_static_hash_tables_with_strict_key_dtypes():
    # TF 1.15: index tables are StaticHashTableV1 (no cast of int32 keys: a TypeError); the
    # oov-bucket table takes keys of its key_dtype only and casts them to the table's int64
    with tf.Graph().as_default():
        t32 = L.index_table_from_tensor(tf.constant([5, 9], tf.int32), dtype=tf.int32)
        assert type(t32).__name__ == "StaticHashTableV1"
        assert type(L.index_to_string_table_from_tensor(["x"])).__name__ == "StaticHashTableV1"
        assert type(tf.lookup.StaticVocabularyTable(L.KeyValueTensorInitializer(
            ["x"], [0], value_dtype=tf.int64), 2)).__name__ == "StaticVocabularyTableV1"
        assert tf.lookup.StaticHashTable.__name__ == "StaticHashTableV1"
        with pytest.raises(TypeError, match=r"^Signature mismatch. Keys must be dtype "
                           r"<dtype: 'int64'>, got <dtype: 'int32'>.$"):
            t32.lookup(tf.constant([9, 1], tf.int32))
        oov = L.index_table_from_tensor(tf.constant([5, 9], tf.int32), dtype=tf.int32,
                                        num_oov_buckets=3)
        with pytest.raises(TypeError, match=r"^Signature mismatch. Keys must be dtype "
                           r"<dtype: 'int32'>, got <dtype: 'int64'>.$"):
            oov.lookup(tf.constant([9, 1], tf.int64))
        ids = oov.lookup(tf.constant([9, 1], tf.int32))
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run(ids).tolist() == [1, 2]


def test_index_table_argument_errors():
    # TF 1.15's exception classes and words, in its order of checks
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=r"^Only integer and string keys are supported.$"):
            L.index_table_from_tensor([1.0, 2.0], dtype=tf.float32)
        with pytest.raises(TypeError, match=r"^Only integer and string keys are supported.$"):
            L.index_table_from_file("v.txt", key_dtype=tf.float32)
        with pytest.raises(ValueError, match=r"^num_oov_buckets must be greater or equal than "
                           r"0, got -2.$"):
            L.index_table_from_file("v.txt", num_oov_buckets=-2, vocab_size=0)
        with pytest.raises(ValueError, match=r"^oov_buckets must be > 0 if no table is "
                           r"supplied.$"):
            L.IdTableWithHashBuckets(None, 0)
        with pytest.raises(TypeError, match=r"^Invalid key_dtype, expected integer or string, "
                           r"got <dtype: 'float32'>.$"):
            L.IdTableWithHashBuckets(None, 2, key_dtype=tf.float32)
        with pytest.raises(TypeError, match=r"^hasher_spec must be of type HasherSpec, got "
                           r"fast$"):
            L.IdTableWithHashBuckets(None, 2, hasher_spec="fast")
        floats = L.HashTable(L.KeyValueTensorInitializer(["a"], [1.0]), -1.0)
        with pytest.raises(TypeError, match=r"^Invalid value dtype, expected <dtype: 'int64'> "
                           r"but got <dtype: 'float32'>.$"):
            L.IdTableWithHashBuckets(floats, 2)
        with pytest.raises(TypeError, match=r"^Invalid value dtype, expected <dtype: 'int64'> "
                           r"but got <dtype: 'int32'>.$"):
            tf.lookup.StaticVocabularyTable(L.KeyValueTensorInitializer(["a"], [0]), 2)


def test_dense_table_is_one_class_and_exports_tf_static_shapes():
    # TF 1.15: tf.contrib.lookup.MutableDenseHashTable is tf.lookup.experimental.DenseHashTable
    # and export() infers keys [?] and values [?] + value_shape, as MutableHashTable's
    assert L.MutableDenseHashTable is tf.lookup.experimental.DenseHashTable
    with tf.Graph().as_default():
        vec = L.MutableDenseHashTable(tf.int64, tf.float32, default_value=[0.0, 0.0],
                                      empty_key=0, deleted_key=-1)
        assert type(vec).__name__ == "DenseHashTable"
        keys, values = vec.export()
        assert keys.get_shape().as_list() == [None]
        assert values.get_shape().as_list() == [None, 2]
        pairs = L.MutableDenseHashTable(tf.int64, tf.int64, default_value=-1,
                                        empty_key=[0, 0], deleted_key=[-1, -1])
        keys, values = pairs.export()
        assert keys.get_shape().as_list() == [None] and values.get_shape().as_list() == [None]


def _run(fetches):
    with tf.Session() as s:
        return s.run(fetches)


def test_ngrams_of_an_empty_row_hold_the_string_before_it():
    # TF 1.15's StringNGrams kernel writes data[start - 1] between the pads of an empty row
    # (TF 1.15 output; a first empty row crashes TF, so it is not compared)
    with tf.Graph().as_default():
        rt = tf.ragged.constant([["a", "b"], [], ["c"]])
        got = _run([tf.strings.ngrams(rt, 2, pad_values=("L", "R")),
                    tf.strings.ngrams(rt, 3, pad_values=("L", "R")),
                    tf.strings.ngrams(rt, (2, 3), pad_values="P", separator="-")])
    assert got[0].to_list() == [[b"L a", b"a b", b"b R"], [b"L b R"], [b"L c", b"c R"]]
    assert got[1].to_list() == [[b"L L a", b"L a b", b"a b R", b"b R R"],
                                [b"L L b R", b"L b R R"], [b"L L c", b"L c R", b"c R R"]]
    assert got[2].to_list()[1] == [b"P-b-P", b"P-P-b-P", b"P-b-P-P"]


def test_ngrams_argument_checks():
    # TF 1.15: a bad pad value is a TypeError; a padding_width needs pad_values; a longer
    # tuple's first two strings pad
    with tf.Graph().as_default():
        rt = tf.ragged.constant([["x", "y"]])
        with pytest.raises(TypeError, match=r"^pad_values must be a string, tuple of strings, "
                           r"or None.$"):
            tf.strings.ngrams(rt, 2, pad_values=3)
        with pytest.raises(TypeError, match="pad_values must be a string"):
            tf.strings.ngrams(rt, 2, pad_values=("a", 1))
        with pytest.raises(ValueError, match=r"^pad_values must be provided if padding_width "
                           r"is set.$"):
            tf.strings.ngrams(rt, 2, padding_width=1)
        with pytest.raises(ValueError, match=r"^padding_width must be greater than 0.$"):
            tf.strings.ngrams(rt, 2, pad_values="#", padding_width=0)
        got = _run(tf.strings.ngrams(rt, 2, pad_values=("a", "b", "c")))
    assert got.to_list() == [[b"a x", b"x y", b"y b"]]


def test_string_ops_tf_does_not_dispatch_refuse_ragged_tensors():
    # TF 1.15: lower/upper and the v1 to_number have no ragged dispatch; the op's TypeError
    # quotes the constant conversion's "Expected string, got ... instead."
    with tf.Graph().as_default():
        rt = tf.ragged.constant([["A", "b"], []])
        for fn in (tf.strings.lower, tf.strings.upper, tf.strings.to_number,
                   tf.string_to_number):
            with pytest.raises(TypeError, match=r"Error: Expected string, got tf.RaggedTensor"
                               r"\(.*\) of type 'RaggedTensor' instead.$"):
                fn(rt)


def test_join_and_add_n_take_ragged_lists():
    # TF 1.15 dispatches string_join and add_n over lists of RaggedTensors (dense operands are
    # passed as they are, so a [2, 1] one does not broadcast)
    with tf.Graph().as_default():
        s = tf.ragged.constant([["x", "y"], ["z"]])
        a = tf.ragged.constant([[1.0, 2.0], [3.0]])
        joined = tf.strings.join([s, "!", s], separator="-")
        total = tf.add_n([a, a, a])
        assert joined.shape.as_list() == [2, None]
        with pytest.raises(ValueError, match="Shapes must be equal rank"):
            tf.strings.join([s, tf.constant([["a"], ["b"]])])
        got = _run([joined, total])
    assert got[0].to_list() == [[b"x-!-x", b"y-!-y"], [b"z-!-z"]]
    assert got[1].to_list() == [[3.0, 6.0], [9.0]]


def test_bytes_split_of_ragged_and_dense_tensors():
    # TF 1.15's string_bytes_split: a StringSplit on "" under "StringsByteSplit"; a
    # RaggedTensor splits its flat values
    with tf.Graph().as_default() as g:
        pieces = tf.strings.bytes_split(["ab", "", "xyz"])
        assert pieces.values.name == "StringsByteSplit/StringSplit:1"
        assert g.get_operation_by_name("StringsByteSplit/StringSplit/delimiter").type == "Const"
        nested = tf.strings.bytes_split(tf.ragged.constant([["ab"], ["c", "de"]]))
        matrix = tf.strings.bytes_split(tf.constant([["ab", "c"], ["", "de"]]))
        assert nested.ragged_rank == 2 and matrix.ragged_rank == 2
        got = _run([pieces, nested, matrix, tf.strings.bytes_split("hé")])
    assert got[0].to_list() == [[b"a", b"b"], [], [b"x", b"y", b"z"]]
    assert got[1].to_list() == [[[b"a", b"b"]], [[b"c"], [b"d", b"e"]]]
    assert got[2].to_list() == [[[b"a", b"b"], [b"c"]], [[], [b"d", b"e"]]]
    assert got[3].tolist() == [b"h", b"\xc3", b"\xa9"]


def test_tables_made_in_a_dataset_function(tmp_path):
    # TF 1.15: a table made in a Dataset.map function has its resource (and a vocabulary's
    # asset_path) in the outer graph, its keys and initializer in the function, which fills it
    # as it runs; TABLE_INITIALIZERS stays empty (TF 1.15 output)
    vocab = tmp_path / "v.txt"
    vocab.write_text("a\nb\nc\n")
    with tf.Graph().as_default() as g:
        def parse(line):
            ids = L.index_table_from_file(str(vocab), num_oov_buckets=1)
            small = L.HashTable(L.KeyValueTensorInitializer(["x"], [7]), -1)
            words = tf.string_split([line]).values
            return ids.lookup(words), small.lookup(words)

        with pytest.warns(UserWarning, match="Creating resources inside a function"):
            ds = tf.data.Dataset.from_tensor_slices(["a c z", "x b"]).map(parse)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        assert tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS) == []
        assert sorted(op.name for op in g.get_operations() if op.type == "HashTableV2") == [
            "hash_table", "string_to_index/hash_table/hash_table"]
        with tf.Session() as s:
            s.run([tf.tables_initializer(), it.initializer])
            first, second = s.run(nxt), s.run(nxt)
    assert first[0].tolist() == [0, 2, 3] and first[1].tolist() == [-1, -1, -1]
    assert second[0].tolist() == [3, 1] and second[1].tolist() == [7, -1]


@pytest.mark.parametrize("pattern,error", [
    # TF 1.15's InvalidArgumentError texts (RE2's error and argument)
    ("(ab", "missing ): (ab"), ("ab)c", "missing ): ab)c"), ("x[abc", "missing ]: [abc"),
    ("*a", "no argument for repetition operator: *"), ("a**", "bad repetition operator: **"),
    ("a++", "bad repetition operator: ++"), ("a{2}{3}", "bad repetition operator: {2}{3}"),
    ("\\q", "invalid escape sequence: \\q"), ("[z-a]", "invalid character class range: z-a"),
    ("a\\", "trailing \\"), ("(?P<n", "invalid named capture group: (?P<n"),
    ("a{2,1}", "invalid repetition size: {2,1}"), ("a{1001}", "invalid repetition size: {1001}"),
    ("(?=a)", "invalid perl operator: (?="), ("(?<=a)b", "invalid perl operator: (?<"),
    ("(?#c)", "invalid perl operator: (?#"), ("\\Z", "invalid escape sequence: \\Z"),
    ("\\p{Foo}", "invalid character class range: \\p{Foo}"),
    ("\\x{110000}", "invalid escape sequence: \\x{110000"),
])
def test_regex_errors_are_re2s(pattern, error):
    with tf.Graph().as_default():
        op = tf.strings.regex_replace(tf.constant(["a"]), pattern, "_")
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(op)
    assert info.value.message.split("\n")[0] == f"Invalid pattern: {pattern}, error: {error}"


def test_regex_syntax_and_global_replace_as_re2():
    # TF 1.15 outputs: RE2 reads a{,3} and x{y} literally, $ only at the end of the text, \s
    # without \v, \z/\C/\Q..\E/\x{..}, (?U); a global replace skips only an empty match where
    # the last one ended (the lazy/alternation cases differ from Python's re.sub)
    with tf.Graph().as_default():
        t = tf.constant(["aab x{y}z", "line2 $5\n", "a\vb c", "aab"])
        cases = [("a{,3}", "_"), ("x{y}", "_"), ("5$", "_"), ("\\s", "_"), ("b\\z", "_"),
                 ("\\Qx{y}\\E", "_"), ("\\x{61}+", "_"), ("(?U)a+", "<\\0>"),
                 ("x*?", "_"), ("(|a)", "_"), ("[\\d-z]", "_")]
        got = _run([tf.strings.regex_replace(t, p, r) for p, r in cases])
    assert got[0].tolist() == [b"aab x{y}z", b"line2 $5\n", b"a\x0bb c", b"aab"]
    assert got[1].tolist()[0] == b"aab _z"
    assert got[2].tolist()[1] == b"line2 $5\n"
    assert got[3].tolist()[2] == b"a\x0bb_c"
    assert got[4].tolist()[3] == b"aa_"
    assert got[5].tolist()[0] == b"aab _z"
    assert got[6].tolist()[3] == b"_b"
    assert got[7].tolist()[3] == b"<a><a>b"
    assert got[8].tolist()[3] == b"_a_a_b_"
    assert got[9].tolist()[3] == b"_a_a_b_"
    assert got[10].tolist()[0] == b"aab x{y}_"


def test_split_of_scalars_and_unknown_ranks_goes_through_the_ragged_split():
    # TF 1.15's strings_split_v1: only a vector goes straight to StringSplitV2; a scalar's
    # ragged split is a vector of tokens (so its SparseTensor form is an AttributeError), and
    # the row count is static only for a constant input (TF evaluates the constant split)
    with tf.Graph().as_default():
        with pytest.raises(AttributeError, match="^'Tensor' object has no attribute "
                           "'to_sparse'$"):
            tf.strings.split(tf.constant("x y  z"))
        tokens = tf.strings.split(tf.constant("a,b,,c"), sep=",", result_type="RaggedTensor")
        assert isinstance(tokens, tf.Tensor) and tokens.get_shape().as_list() == [None]
        assert tf.strings.split(tf.constant(["a b", "c", ""]),
                                result_type="RaggedTensor").shape.as_list() == [3, None]
        assert tf.strings.split(tf.placeholder(tf.string, [3]),
                                result_type="RaggedTensor").shape.as_list() == [None, None]
        p = tf.placeholder(tf.string)
        sp = tf.strings.split(p)
        assert isinstance(sp, tf.SparseTensor)
        with pytest.raises(ValueError, match="^result_type must be 'RaggedTensor' or "
                           "'SparseTensor'.$"):
            tf.strings.split(["a"], result_type="Dense")
        with tf.Session() as s:
            assert s.run(tokens).tolist() == [b"a", b"b", b"", b"c"]
            got = s.run(sp, {p: ["a b", "c"]})
    assert got.indices.tolist() == [[0, 0], [0, 1], [1, 0]]
    assert got.dense_shape.tolist() == [2, 2]


def test_dense_forms_of_a_constant_split_are_static():
    # TF 1.15's shape refiner runs the split of a constant: to_dense and fill_empty_rows of it
    # have static shapes (TF 1.15 output), while the dense_shape's own value stays unknown
    with tf.Graph().as_default():
        sp = tf.string_split(tf.constant(["a b c", "", "d e"]))
        sp2 = tf.strings.split(tf.constant(["a,b", "c"]), sep=",")
        assert tf.sparse.to_dense(sp, default_value="").get_shape().as_list() == [3, 3]
        assert tf.sparse.to_dense(sp2, default_value="").get_shape().as_list() == [2, 2]
        _, empty = tf.sparse.fill_empty_rows(sp, "<e>")
        assert empty.get_shape().as_list() == [3]
        assert tf.get_static_value(sp.dense_shape) is None
        p = tf.placeholder(tf.string, [3])
        assert tf.sparse.to_dense(tf.string_split(p), default_value="").get_shape().as_list() \
            == [None, None]


def test_int_attrs_out_of_int64_range():
    # TF 1.15: an int attr past int64 is protobuf's ValueError when the op is made
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Value out of range: 9223372036854775808$"):
            tf.strings.to_hash_bucket_strong(["a"], 3, [2**63, 1])
        with pytest.raises(ValueError, match=r"^Value out of range: 9223372036854775808$"):
            tf.strings.to_hash_bucket_fast(["a"], 2**63)
        assert tf.strings.to_hash_bucket_strong(["a"], 3, [2**63 - 1, 1]).op.type == \
            "StringToHashBucketStrong"


def test_text_file_tables_sharing_and_errors(tmp_path):
    # TF 1.15: contrib's HashTable shares no resource (shared_name=None), so a second table on
    # the same file and columns initializes (and fails) by itself; StaticHashTable shares by
    # file and columns. Error words as TF 1.15's lookup_util
    vocab = tmp_path / "v.txt"
    vocab.write_text("hello\t0.5\nworld\t1.5\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("a\t1\nb\n")
    with tf.Graph().as_default():
        floats = L.HashTable(L.TextFileInitializer(str(vocab), tf.string, 0, tf.float32, 1), -9.)
        ints = L.HashTable(L.TextFileInitializer(str(vocab), tf.string, 0, tf.int64, 1), -1)
        short = L.HashTable(L.TextFileInitializer(str(bad), tf.string, 0, tf.int64, 1), -1)
        a = tf.lookup.StaticHashTable(L.TextFileInitializer(str(vocab), tf.string, 0, tf.int64,
                                                            -1), -1)
        b = tf.lookup.StaticHashTable(L.TextFileInitializer(str(vocab), tf.string, 0, tf.int64,
                                                            -1), -1)
        assert floats.resource_handle.op.get_attr("shared_name") in (b"", "")
        shared = a.resource_handle.op.get_attr("shared_name")
        assert shared == b.resource_handle.op.get_attr("shared_name") and shared
        with tf.Session() as s:
            s.run(floats.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"^Field 0.5 in line 0 is not a valid int64."):
                s.run(ints.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"line 1 \(b\) : expected 1 got 1"):
                s.run(short.initializer)
            s.run(a.initializer)
            assert s.run([floats.lookup(tf.constant(["world"])), b.size()])[1] == 2


def test_mutable_table_of_strings_and_dense_table_method_names(tmp_path):
    # TF 1.15: a MutableHashTable may map to strings (inserted, looked up and restored from a
    # checkpoint); DenseHashTable also answers insert_or_assign and erase (TF 1.15 output)
    with tf.Graph().as_default():
        names = L.MutableHashTable(tf.int64, tf.string, "?", name="names")
        dense = tf.lookup.experimental.DenseHashTable(tf.string, tf.int64, -1, empty_key="",
                                                      deleted_key="$", name="dense")
        fill = [names.insert(tf.constant([5, 7], tf.int64), ["five", "seven"]),
                dense.insert_or_assign(["x", "y"], tf.constant([1, 2], tf.int64))]
        drop = dense.erase(tf.constant(["y"]))
        look = [names.lookup(tf.constant([7, 6], tf.int64)), dense.lookup(["x", "y"])]
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(fill)
            s.run(drop)
            assert [v.tolist() for v in s.run(look)] == [[b"seven", b"?"], [1, -1]]
            path = saver.save(s, str(tmp_path / "m"))
        with tf.Session() as s:
            saver.restore(s, path)
            assert [v.tolist() for v in s.run(look)] == [[b"seven", b"?"], [1, -1]]


def test_unicode_encoding_errors_in_tf_words():
    # TF 1.15: an unknown input encoding is the kernel's "Could not create converter"; an
    # output encoding the op does not list is the attr's ValueError; a rank-0 or unknown-rank
    # input of unicode_encode is refused in these words
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Could not create converter for input encoding: KLINGON"):
            _run(tf.strings.unicode_decode(["a"], "KLINGON"))
        with pytest.raises(ValueError, match="^Attr 'output_encoding' of 'UnicodeEncode' Op "
                           "passed string 'UTF-16-LE' not in: \"UTF-8\", \"UTF-16-BE\", "
                           "\"UTF-32-BE\".$"):
            tf.strings.unicode_encode([[104]], "UTF-16-LE")
        with pytest.raises(ValueError, match="^Rank of input_tensor must be statically known.$"):
            tf.strings.unicode_encode(tf.placeholder(tf.int32), "UTF-8")
        with pytest.raises(ValueError, match="^input_tensor's rank must be at least 1.$"):
            tf.strings.unicode_encode(tf.constant(104), "UTF-8")


@pytest.mark.parametrize("key,value,ok", [
    # TF 1.15's registered HashTableV2 kernels (checked there): no string -> string table
    (tf.string, tf.int64, True), (tf.int64, tf.string, True), (tf.string, tf.bool, True),
    (tf.int32, tf.float64, True), (tf.string, tf.string, False), (tf.int64, tf.bool, False),
    (tf.int32, tf.string, False), (tf.float32, tf.int64, False)])
def test_hash_table_kernels_are_tfs(key, value, ok):
    with tf.Graph().as_default():
        keys = tf.constant(["a"] if key == tf.string else [1], key)
        values = tf.constant(["v"] if value == tf.string else [True] if value == tf.bool
                             else [1], value)
        table = L.HashTable(L.KeyValueTensorInitializer(keys, values), values[0])
        with tf.Session() as s:
            if ok:
                s.run(table.initializer)
            else:
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match="^No OpKernel was registered to support Op "
                                         "'HashTableV2' used by node hash_table with these "
                                         "attrs: \\[key_dtype=DT_"):
                    s.run(table.initializer)


def test_dense_table_kernels_are_tfs():
    # TF 1.15's MutableDenseHashTableV2 kernels hold int64 -> bool, not int64 -> string
    with tf.Graph().as_default():
        flags = L.MutableDenseHashTable(tf.int64, tf.bool, False, empty_key=0, deleted_key=-1)
        names = L.MutableDenseHashTable(tf.int64, tf.string, "", empty_key=0, deleted_key=-1)
        with tf.Session() as s:
            assert s.run(flags.size()) == 0
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="value_dtype=DT_STRING"):
                s.run(names.size())


def test_string_op_shape_errors_in_tf_words():
    # TF 1.15's shape functions (the framework adds " for '<op>' (op: ...) ...")
    with tf.Graph().as_default():
        s = tf.constant(["ab", "cd", "ef"])
        cases = [
            (lambda: tf.strings.regex_full_match(s, tf.constant(["a"])),
             "Shape must be rank 0 but is rank 1 for 'RegexFullMatch'"),
            (lambda: tf.strings.split(s, sep=["a", "b"]),
             "Shape must be rank 0 but is rank 1 for 'StringSplit/StringSplitV2'"),
            (lambda: tf.strings.unsorted_segment_join(s, [0, 1], 2),
             "Dimensions must be equal, but are 3 and 2 for 'UnsortedSegmentJoin'"),
            (lambda: tf.strings.unsorted_segment_join(s, [0, 1, 0], [2]),
             "Shape must be rank 0 but is rank 1 for 'UnsortedSegmentJoin_1'"),
        ]
        for fn, words in cases:
            with pytest.raises(ValueError) as info:
                fn()
            assert str(info.value).startswith(words)
        with pytest.raises(TypeError, match="^Input 'input' of 'StringStrip' Op has type int32 "
                           "that does not match expected type of string.$"):
            tf.strings.strip(tf.constant([1]))


def test_decode_compressed_inflates_as_tf(tmp_path):
    # TF 1.15 (its streaming inflate): a truncated stream gives the bytes it holds, trailing
    # data after the first stream is ignored, corrupt data is zlib's DataLossError, an unknown
    # compression type the kernel's InvalidArgumentError (TF 1.15 outputs)
    import gzip
    import io
    import zlib

    raw = b"hello world " * 30
    packed = zlib.compress(raw)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as f:
        f.write(raw)
    gz = buf.getvalue()
    with tf.Graph().as_default():
        got = _run([tf.io.decode_compressed(tf.constant([packed[:10], packed + b"x", b""]),
                                            compression_type="ZLIB"),
                    tf.io.decode_compressed(tf.constant([gz[:15], gz + gz]),
                                            compression_type="GZIP")])
        assert got[0].tolist() == [b"hello w", raw, b""]
        assert got[1].tolist() == [b"hell", raw]
        with pytest.raises(tf.errors.DataLossError,
                           match=r"^inflate\(\) failed with error -3: incorrect header check"):
            _run(tf.io.decode_compressed(tf.constant([b"abc"]), compression_type="GZIP"))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Only ZLIB, GZIP or NONE are supported compressions"):
            _run(tf.io.decode_compressed(tf.constant([b"abc"]), compression_type="BZ2"))


def test_segment_join_bad_ids_error():
    # TF 1.15's UnsortedSegmentJoin names no index in its error
    with tf.Graph().as_default():
        op = tf.strings.unsorted_segment_join(tf.constant(["a", "b", "c"]), [0, 5, 1], 2)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(op)
    assert info.value.message.split("\n")[0] == (
        "segment_ids are not allowed to exceed num_segments or to have negative values.")


def test_export_op_names():
    # TF 1.15: contrib's HashTable.export names the op by its scope; StaticHashTable's op
    # sits inside "<table>_Export"
    with tf.Graph().as_default():
        static = tf.lookup.StaticHashTable(L.KeyValueTensorInitializer(["a"], [1]), -1)
        contrib = L.HashTable(L.KeyValueTensorInitializer(["a"], [1]), -1)
        assert static.export()[0].name == "hash_table_Export/LookupTableExportV2:0"
        assert contrib.export()[0].name == "hash_table_1_Export:0"
        assert contrib.export(name="ex")[1].name == "ex:1"
