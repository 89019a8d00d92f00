"""Training-trajectory parity with TF 1.15: the float32 kernels a training step runs, bit for
bit where TF's are deterministic. Reference bits were measured in TF 1.15 (tensorflow-cpu 1.15.0,
CPython 3.7, on a 2-core AMD EPYC machine) on the same NumPy-seeded inputs."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import threads


def _f32(hexstr):
    return np.frombuffer(bytes.fromhex(hexstr), ">f4").astype(np.float32)


def _bits_equal(got, want_hex):
    got = np.asarray(got, np.float32).ravel()
    want = _f32(want_hex)
    assert got.shape == want.shape
    bad = np.nonzero(got.view(np.uint32) != want.view(np.uint32))[0]
    assert bad.size == 0, f"{bad.size} differ, first at {bad[0]}: {got[bad[0]]!r} != {want[bad[0]]!r}"


# tf.nn.fused_batch_norm on x [2, 3, 4, 3] (3 channels: Eigen's scalar path, where TF's rsqrt
# is 1 / sqrt), training and inference, forward and gradient, as TF 1.15 printed them
_BN_REF = {
    "go": ("c05eeb94408ce70abfee71ec"),
    "goi": ("c05eeb94408ce70abfee71ec"),
    "gs": ("c00100954058fbd9bf5a69b8"),
    "gsi": ("408791344169536cc031e8d0"),
    "gx": ("beccfbf7be393760bf0846c1bf12276a3e773327bfb44b52bf3e7f6b3d22b55fbe3ff436"
            "be4f17bd3e010001bf031ef4bf2a5d29bf03a19b3da3fe8c3ee7f5ba3df7658b3e97bebf"
            "3f66b080be4215f63fbd0a013ecfc514bdbe179cbf8c1c65bcd296c6be288c23bf62933e"
            "bf291e303e24d565bf6dcda7bf34f7d53d98ab4f3e1c8b613d52703a3eb251e2be3c01d9"
            "bebf220abe9dff823fba74763f487f3bbdec65a2be9e98c93f48ec7abdd9373e3ee265ed"
            "3fdea299be2534d9be89b7f53f4db8f93e9a86d8bf16bfb6bf31e5493ed09ba73dfc9b69"
            "3f30faa13e9245fd3fd5f3a2be96f942bebefeef3f37349b3f85683cbeb099733e46d9df"
            "bf69b9c8be9e81f43da38c39beb62e7a3e1237983eeaebebbf8619a13f1c8dffbe7e0e58"),
    "gxi": ("bf7693a7be918ed4bf7f709ebfaa15223f6c607ac02a127dc002adc73efeda71bed647b0"
            "beea2dae3f68f0febf75f3dcbfcd4703bfcd115bbd33138e3f6c7e833eebf4c03eeba337"
            "3fe1745fbeb10609401d30873f2f2574b9b48427c004d7dabe873496bead0754bfcb9b36"
            "bfd27fd33f5ec748bfe851fcbfcb888e3f3236063e3686c0bde2e7b33f9ba04cbec64875"
            "bf7c5f10bf2ebd0d401dba133f97c41fbea036aebf1bc8f03fbc24cdbd3ce9cd3f1430e1"
            "40587151bedf6782bf0d04843fc271483f9b37e4bf8f618dbfd41c113f9c2a2f3df8dc1a"
            "3fa98a833f6e66244034c6e6bf695a60bfa46aa63f9cac0540052c88bf86db713e870645"
            "c0153320bf2b2a293d815cc4bf4beae03f3c5a223f2e56b8c01fadc6401313fdbf0c3081"),
    "m": ("3def2cfe3fba5d923f8c55b6"),
    "v": ("407f563e40cc93ee4071eeb9"),
    "y": ("bf83ea183f1d9335bfa0ec36bf80390fbea228f0401224e940311ede3f702cb7becec35c"
            "bff9d9493fd12a2bbfa72014be47ded3bf19eb654021a90fbfe73f42bf2e2008bf9b76a4"
            "bf099fb13ee0590c3fa80769be91b5f63f17d9b83fb410a53d31ec073d2fe400c0079961"
            "3ebaa4f33f4eec604016a0c3bfa786883fb1f851bea65aea3e24fe9dbf1f857dbf92dff3"
            "be1ca4b63f38746bbcc1769c4040fcd5bf2f426ebf9670a8bd63453c3f14806b403f16c1"
            "3f9fba37bf0a88fbbf3ee555be2139d53e324d6ebf10707ebe97a709bfd18fe4be39940c"
            "bf24a75abf8673fa3f0752a43f5c4b4bbfafd6e9bffe4836bf3f5e81bf2134f0bf361e87"
            "400022dc3f500efcbf3c567abfe890653ed037eb3f45825e3f2875073f0f4a723e8c4f88"),
    "yi": ("c0a91d5540223139bfa07223c0a72692bf041d8d409f6d6140330c1c4065c25f3e7f639d"
            "c0e7db4340bbbed6bfab5e8cc0607417bfb9395d40ad1714c0ddf5d5bfda47dbbf96d4dd"
            "c0878b293ffa1b9b40516fedc06ca144401d8272405c0921c03ff4513f292662c03153a2"
            "c01438e8404a8f3b40a36021c0bc0f5840a23a5d3ec6db86c02fed00bfc2638ebf87b4bb"
            "c05ab44640382e183f6b44384054d016bfdc22f3bf8dfc1bc04d6d5c401ac52c40c700e9"
            "bedf5849bfa00e13beb48cd2c05b504e3f8b8428bd075cc9c06e35e0c09ac6853f24352b"
            "c08ebbd1c03aabf33ff21db7bfa15838c07e6162c0226e57c095d70ebfc52569be95a314"
            "3f959d3b404b7cf3beab8a46c0dea9303fece9f440146ff5bfd87ff8401681f93fb8bb85"),
}


def _bn_inputs():
    rs = np.random.RandomState(1272)
    x = (rs.randn(2, 3, 4, 3) * 2 + 0.7).astype(np.float32)
    sc = (rs.rand(3) + 0.5).astype(np.float32)
    of = rs.randn(3).astype(np.float32)
    dy = rs.randn(2, 3, 4, 3).astype(np.float32)
    pm = rs.randn(3).astype(np.float32)
    pv = (rs.rand(3) + 0.2).astype(np.float32)
    return x, sc, of, dy, pm, pv


def test_fused_batch_norm_float32_bits_match_tf():
    x, sc, of, dy, pm, pv = _bn_inputs()
    with tf.Graph().as_default():
        xt = tf.placeholder(tf.float32, [2, 3, 4, 3])
        st, ot = tf.Variable(sc), tf.Variable(of)
        y, m, v = tf.nn.fused_batch_norm(xt, st, ot, epsilon=0.001, is_training=True)
        gx, gs, go = tf.gradients(y, [xt, st, ot], dy)
        yi, _, _ = tf.nn.fused_batch_norm(xt, st, ot, mean=tf.Variable(pm),
                                          variance=tf.Variable(pv), epsilon=0.001,
                                          is_training=False)
        gxi, gsi, goi = tf.gradients(yi, [xt, st, ot], dy)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            fetch = {"y": y, "m": m, "v": v, "gx": gx, "gs": gs, "go": go, "yi": yi,
                     "gxi": gxi, "gsi": gsi, "goi": goi}
            got = s.run(fetch, {xt: x})
    for k, want in _BN_REF.items():
        _bits_equal(got[k], want)


def test_fused_batch_norm_v3_reserve_space_3_is_a_scalar():
    # TF 1.15's CPU kernel gives a float32 scalar 0 there
    with tf.Graph().as_default():
        out = tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3]), tf.ones([3]), tf.zeros([3]))
        r3 = out[0].op.outputs[5]
        with tf.Session() as s:
            v = s.run(r3)
    assert np.shape(v) == () and v == 0.0


# the offset gradient (the column sums of dy) of fused batch norm, with TF 1.15's intra-op pool
# of 1, 2, 3, 4 and 8 threads: TF splits the rows into blocks by its pool's size and its cost
# model, so each pool size has its own bits
_REDUX_REF = {
    (1, 64): ("c2869467c3122b28c385a9cbc20aec1e433a33f0"),
    (1, 32): ("c032cc83422f7f704292dd0f42127cb642079d3f42b5c8693f3362a8c28b267ac28210bb"
                "411abc6dc2adfacbc286a10cc188240a4240d4c741b58b8542943a44c2c580eec2aa539b"
                "3f2c4cc1c2962d4bc24abeae4297e41a420fcd02c06135d6c208303542252bb7c0346b87"
                "429a5acfc22bb7144116821fc14d0592420a8d09c13ce29ec149285041b730e8c1815d57"
                "427ae01841b4fcd342130df7c1be3f1041917687c251a042421acc71c2e44d71c1132c27"
                "42077ef5c1503d8040536217c28158c34086d384420b95acc2168f13c20fe258c0759e8e"
                "c22365cfc20c70f840422474c09bcf8c4202ba2bc186b667416e0c62c24fa420402e30b2"
                "c19fb946"),
    (2, 64): ("c286946ec3122b11c385a9dac20aebf1433a3394"),
    (2, 32): ("c032cb98422f7f814292dd0642127cba42079d6142b5c8603f336280c28b2682c28210b8"
                "411abc55c2adfabec286a110c188240e4240d4d041b58b7242943a39c2c580dec2aa539e"
                "3f2c4c40c2962d46c24abeaa4297e422420fcd0bc0613638c208303b42252ba4c0346aa0"
                "429a5ad6c22bb7134116824ec14d05a8420a8cfec13ce2aac149284441b730cdc1815d5b"
                "427ae00e41b4fcd842130e01c1be3f104191768dc251a028421acc6fc2e44d72c1132c25"
                "42077efac1503d5a40536310c28158c84086d38c420b95b6c2168f14c20fe25ac0759e28"
                "c22365c8c20c70ff40422458c09bcf704202ba32c186b65c416e0c6cc24fa413402e309e"
                "c19fb94a"),
    (3, 64): ("c286948cc3122afcc385a9dac20aec1b433a33b0"),
    (3, 32): ("c032cc87422f7f804292dd0042127cba42079d4f42b5c8623f336340c28b2682c28210b6"
                "411abc40c2adfac0c286a114c18824314240d4ce41b58b7642943a36c2c580e8c2aa53a5"
                "3f2c4f50c2962d4cc24abeb64297e420420fcd0ac06135f0c208303142252ba5c0346a98"
                "429a5ad0c22bb7184116821ac14d05b0420a8d09c13ce2cec149284241b730d1c1815d5c"
                "427ae01b41b4fcd242130e02c1be3f1141917698c251a033421acc70c2e44d6fc1132c18"
                "42077efec1503da0405362c0c28158d24086d384420b95b5c2168f0bc20fe259c0759e24"
                "c22365d2c20c70eb40422470c09bcf8c4202ba39c186b667416e0c50c24fa406402e308a"
                "c19fb950"),
    (4, 64): ("c286948bc3122b12c385a9dac20aebae433a33a2"),
    (4, 32): ("c032cbf0422f7f7c4292dd0142127cb842079d5942b5c8603f336200c28b2682c28210b8"
                "411abc5fc2adfabec286a10fc18824044240d4c241b58b7942943a38c2c580ebc2aa53a0"
                "3f2c4d80c2962d48c24abead4297e41c420fcd09c06135dcc208302a42252ba2c0346ab8"
                "429a5ad5c22bb70f4116823dc14d05b6420a8d04c13ce2dac149284441b730d4c1815d64"
                "427ae01441b4fcdf42130e00c1be3f0e41917694c251a02e421acc6fc2e44d6ec1132c27"
                "42077efbc1503da5405362a0c28158d14086d410420b95b3c2168f10c20fe25cc0759d80"
                "c22365d0c20c70f440422448c09bcf8c4202ba36c186b667416e0c70c24fa40d402e30bc"
                "c19fb94c"),
    (8, 64): ("c286948ac3122b18c385a9d0c20aebb5433a33a5"),
    (8, 32): ("c032cc20422f7f804292dd0442127cb042079d5442b5c8653f3362a0c28b2682c28210be"
                "411abc4cc2adfac2c286a112c18824254240d4bb41b58b6442943a35c2c580eac2aa53a2"
                "3f2c4d00c2962d4bc24abeb04297e418420fcd04c0613654c208302642252b9ac0346ae0"
                "429a5ad1c22bb7124116823ac14d05c5420a8d04c13ce2e8c149285641b730d3c1815d61"
                "427ae01b41b4fce642130e02c1be3f1a41917691c251a02c421acc6dc2e44d69c1132c34"
                "42077efac1503dcb405362d8c28158ce4086d3d4420b95b6c2168f09c20fe25ac0759db8"
                "c22365ccc20c70e640422428c09bcf604202ba33c186b668416e0c4ac24fa40f402e30aa"
                "c19fb946"),
}


@pytest.fixture
def restore_pool():
    before = threads._wanted[0]
    yield
    threads.set_thread_count(before)


@pytest.mark.parametrize("pool,batch", sorted(_REDUX_REF))
def test_fused_batch_norm_gradient_sums_split_as_tf_pool(pool, batch, restore_pool):
    shape = (64, 20, 20, 5) if batch == 64 else (32, 8, 8, 64)
    rs = np.random.RandomState(2725)
    x = rs.randn(*shape).astype(np.float32)
    dy = rs.randn(*shape).astype(np.float32)
    c = shape[-1]
    with tf.Graph().as_default():
        xt = tf.placeholder(tf.float32, shape)
        y, _, _ = tf.nn.fused_batch_norm(xt, tf.ones([c]), tf.zeros([c]), epsilon=0.001)
        go = tf.gradients(y, [xt, y.op.inputs[2]], dy)[1]
        with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=pool)) as s:
            got = s.run(go, {xt: x})
    _bits_equal(got, _REDUX_REF[(pool, batch)])


# optimizer updates after three steps on a variable of 6 x 3, 6 x 1, 6 or 5 floats (fewer than 8
# per row: Eigen's scalar path, where TF's rsqrt and sqrt are exact; rows of one float take TF's
# element-by-element sparse kernels), through tf.gather (sparse: indices [1, 4, 1, 0], TF's
# deduplicated IndexedSlices) or a dense product, as TF 1.15 left them
_OPT_REF = {
    ("adagrad", "6x3", True): ("be1b4945bf2fdacc3e5e922fbc833300bfaa7febbf2c081bbf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b43e8e1d484018a0123e0b9108bf813c17"
        "bea1b41c3f1874e3"),
    ("padagrad", "6x3", True): ("be24990dbf2c643b3e525034bc8ac25abfa8dbbebf29ba6ebf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b43e8e066d4016ea783e05a4e6bf813c17"
        "bea1b41c3f1874e3"),
    ("nesterov", "6x3", True): ("be5f22d0bf4eece83e9d38e9bfd1813cbfcb9134bf9bfc6ebf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b43c6dd2604032c55c3da76191bf813c17"
        "bea1b41c3f1874e3"),
    ("nesterov", "6x3", False): ("be5f22d2bf4eece83e9d38eabf20f461bfb8604abf2d865a3e8b4001bf364d2d"
        "bf78b0cd3f3c59b0bf4bd87f3f4cf3393c6dd2604032c55c3da76191bf961a45"
        "bf3953c73f529241"),
    ("pgd", "6x3", True): ("bee4b194bf559a863e86c885bfd8223abfe4d782bf981711bf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b43e07f78a402e59203dd9bfacbf813c17"
        "bea1b41c3f1874e3"),
    ("pgd", "6x3", False): ("bee4b194bf559a863e86c885bf274f06bfc2f9abbf282dba3ebc9e1ebf5554df"
        "bf5a34bd3f192d47bf6c3fb63f3284c43e07f78a402e59203dd9bfacbfa5cb01"
        "bf2ef17b3f41fd68"),
    ("adagrad_da", "6x3", True): ("becacbdfbe90a30a3e504e2dbeb58445be2e46acbed8546abf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b43ebcb3553edf25913dafcaa4bf813c17"
        "bea1b41c3f1874e3"),
    ("adagrad_da", "6x3", False): ("becacbdfbe90a30a3e504e2ebeb36952be27a00dbed02bc93f0066883d407f04"
        "3eb45c5b3db5de3cbed5c790beb18d313ebcb3543edf25913dafcaa3be35cf55"
        "bec018c13dc2479b"),
    ("adadelta", "6x3", True): ("3f024284beaf2619be2a84ca3ec18636bfa544ddbe0e4c5ebf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b4be973b633ff289ee3d732b56bf813c17"
        "bea1b41c3f1874e3"),
    ("adadelta", "6x3", False): ("3f024284beaf2619be2a84ca3ec18636bfa544ddbe0e4c5ebf39dcc9bf6e982f"
        "bf9c3a313ef41569be9c30fb3f83ec83be973b633ff289ee3d732b56bf81577b"
        "bea277293f1891cc"),
    ("ftrl", "6x3", True): ("be1c3722bef7008c3e55bf5d3dba8250bf86bfb9beed4e23bf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b43eafc0773fed7ed53d6b6bd3bf813c17"
        "bea1b41c3f1874e3"),
    ("rms", "6x3", True): ("3ee0aae8bec5e0b6bdf382373e8a151abfa7dd96be749c53bf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b4be8698cc3ffd80e73d804c98bf813c17"
        "bea1b41c3f1874e3"),
    ("rmsc", "6x3", True): ("3edfd7e9bec62801bdf17c393e877dc4bfa7d7babe775fc3bf3a89aebf6e9cb5"
        "bf9ca56b3ef40829be9a722d3f8446b4be8676683ffdb6203d804c27bf813c17"
        "bea1b41c3f1874e3"),
    ("adagrad", "6", True): ("3f355260beedd27ebe2c103a3ec2336dbf297310be0c4f5f"),
    ("adagrad", "6", False): ("3f355260bef22fc83e3067773df2d71cbf297310bf3af400"),
    ("padagrad", "6", True): ("3f2ead86beebbfa0be2c103a3ec2336dbf1e3a6abe0c4f5f"),
    ("padagrad", "6", False): ("3f2ead85beee145d3e2751a93dd96e80bf1e3a68bf370e2e"),
    ("nesterov", "6", True): ("3f37c10cbf98db4abe2c103a3ec2336dbf746af8be0c4f5f"),
    ("nesterov", "6", False): ("3f37c10cbf447d5a3e94138a3c8ec9e0bf746af8bf4dbf66"),
    ("pgd", "6", True): ("3f19a2f2bfd1e9b7be2c103a3ec2336dbf58a9a3be0c4f5f"),
    ("pgd", "6", False): ("3f19a2f1bf7ae0923e80b04dbe58c131bf58a9a0bf578dfa"),
    ("adagrad_da", "6", True): ("3dbdf8e5be882556be2c103a3ec2336d3ed9a0e5be0c4f5f"),
    ("adagrad_da", "6", False): ("3dbdf8e4be85e2f53ea4fd4fbe55c0fb3ed9a0e5bef76417"),
    ("adadelta", "6", True): ("3f031457beaf1ad9be2c103a3ec2336dbfa4c701be0c4f5f"),
    ("adadelta", "6", False): ("3f031457beaf1ad9be2aeaa13ec188edbfa4c701be0eb429"),
    ("ftrl", "6", True): ("3edd23d9beba8d6dbe2c103a3ec2336d3d81f898be0c4f5f"),
    ("ftrl", "6", False): ("3edd23d9bea1d9b03dca158cbbd98b343d81f896bef97c22"),
    ("rms", "6", True): ("3f086222bec3cc6bbe2c103a3ec2336dbfa03c5bbe0c4f5f"),
    ("rms", "6", False): ("3f086222bec2f1d6bdfa0d4d3eb44d19bfa03c5bbe550462"),
    ("rmsc", "6", True): ("3f086a09bec433f4be2c103a3ec2336dbfa03577be0c4f5f"),
    ("rmsc", "6", False): ("3f086a09bec333b2bdf959af3eb40928bfa03577be55e798"),
    ("adagrad", "5", False): ("3f8d010ebe6e7a463d58cd983eac6bb3bfebe7f4"),
    ("padagrad", "5", False): ("3f87483ebe6313f73d2daf083ea749c7bfe5310a"),
    ("nesterov", "5", False): ("3f550d26be9ee52c3df682643e25b1c6bfda2db9"),
    ("pgd", "5", False): ("3f6ca6d0bea590893c4029ccbce27721bfe45c7e"),
    ("adagrad_da", "5", False): ("3ec15c4b000000003e1a2646be271a19bec1b5c7"),
    ("adadelta", "5", False): ("3f03e452beae664bbe2b77043ec1ddfabfa57890"),
    ("ftrl", "5", False): ("3ed8daf6be04e5323cfccf8d3e812523bf6e2a5f"),
    ("rms", "5", False): ("3f0c7086beadde28be0e06b43eb80247bfaafb6a"),
    ("rmsc", "5", False): ("3f0c8236beadd7a3be0dd22a3eb80dc7bfab09bf"),
    ("adagrad", "6x1", True): ("3f355260beedd27ebe2c103a3ec2336dbf297310be0c4f5f"),
    ("adagrad", "6x1", False): ("3f355260bef22fc83e3067773df2d71cbf297310bf3af400"),
    ("padagrad", "6x1", True): ("3f2ead86beebbfa0be2c103a3ec2336dbf1e3a6abe0c4f5f"),
    ("padagrad", "6x1", False): ("3f2ead85beee145d3e2751a93dd96e80bf1e3a68bf370e2e"),
    ("nesterov", "6x1", True): ("3f37c10cbf98db4abe2c103a3ec2336dbf746af8be0c4f5f"),
    ("nesterov", "6x1", False): ("3f37c10cbf447d5a3e94138a3c8ec9e0bf746af8bf4dbf66"),
    ("pgd", "6x1", True): ("3f19a2f2bfd1e9b7be2c103a3ec2336dbf58a9a3be0c4f5f"),
    ("pgd", "6x1", False): ("3f19a2f1bf7ae0923e80b04dbe58c131bf58a9a0bf578dfa"),
    ("adagrad_da", "6x1", True): ("3dbdf8e5be882556be2c103a3ec2336d3ed9a0e5be0c4f5f"),
    ("adagrad_da", "6x1", False): ("3dbdf8e4be85e2f53ea4fd4fbe55c0fb3ed9a0e5bef76417"),
    ("adadelta", "6x1", True): ("3f031457beaf1ad9be2c103a3ec2336dbfa4c701be0c4f5f"),
    ("adadelta", "6x1", False): ("3f031457beaf1ad9be2aeaa13ec188edbfa4c701be0eb429"),
    ("ftrl", "6x1", True): ("3edd23d9beba8d6dbe2c103a3ec2336d3d81f898be0c4f5f"),
    ("ftrl", "6x1", False): ("3edd23d9bea1d9b03dca158cbbd98b343d81f896bef97c22"),
    ("rms", "6x1", True): ("3f086222bec3cc6bbe2c103a3ec2336dbfa03c5bbe0c4f5f"),
    ("rms", "6x1", False): ("3f086222bec2f1d6bdfa0d4d3eb44d19bfa03c5bbe550462"),
    ("rmsc", "6x1", True): ("3f086a09bec433f4be2c103a3ec2336dbfa03577be0c4f5f"),
    ("rmsc", "6x1", False): ("3f086a09bec333b2bdf959af3eb40928bfa03577be55e798"),
}

_OPTS = {
    "adagrad": lambda: tf.train.AdagradOptimizer(0.3),
    "padagrad": lambda: tf.train.ProximalAdagradOptimizer(
        0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "pgd": lambda: tf.train.ProximalGradientDescentOptimizer(
        0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
    "adagrad_da": lambda: tf.train.AdagradDAOptimizer(
        0.3, tf.train.get_or_create_global_step(), l1_regularization_strength=0.01,
        l2_regularization_strength=0.02),
    "adadelta": lambda: tf.train.AdadeltaOptimizer(2.0),
    "ftrl": lambda: tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.01,
                                           l2_regularization_strength=0.02),
    "rms": lambda: tf.train.RMSPropOptimizer(0.02, momentum=0.5),
    "rmsc": lambda: tf.train.RMSPropOptimizer(0.02, momentum=0.5, centered=True),
}


@pytest.mark.parametrize("name,shape,sparse", sorted(_OPT_REF))
def test_optimizer_updates_match_tf_bits(name, shape, sparse):
    dims = [int(d) for d in shape.split("x")]
    rs = np.random.RandomState(272)
    w0 = rs.randn(*dims).astype(np.float32)
    grads = [rs.randn(*dims).astype(np.float32) for _ in range(3)]
    with tf.Graph().as_default():
        v = tf.Variable(w0)
        gp = tf.placeholder(tf.float32, dims)
        if sparse:
            idx = [1, 4, 1, 0]
            loss = tf.reduce_sum(tf.gather(v, idx) * tf.gather(gp, idx))
        else:
            loss = tf.reduce_sum(v * gp)
        train = _OPTS[name]().minimize(loss, global_step=tf.train.get_or_create_global_step())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for g in grads:
                s.run(train, {gp: g})
            got = s.run(v)
    _bits_equal(got, _OPT_REF[(name, shape, sparse)])


# seeded float normals (TF's Box-Muller takes glibc's logf and sincosf, which are not
# correctly rounded): TF 1.15's values, and the sha256 of 20000 more
_NORMAL_REF = {
    "w": ("3ed635d9bc3721debe9c4f82bea3fab2becf900bbede7879be9fbcd03eb87ed3"
        "bed921d93dc7850fbe92bbb2be788835bee519fcbe49180e3ebf166bbf05de11"
        "ba840ec0be040888befc850c3f0f33ab3d3022d13e40445cbe0bac853e99e357"
        "3e2371933e3f7e42bd9cbe2ebf03467dbe665e383e521f753e8c550ebd466375"
        "3e1fbcb7be4cec4d3de1e30b3d23e4c83e3ca7af3e9102843eeaeafe3dd3b64c"
        "3eecdf55bd47ffe2be54dc6bbebd82bcbd30aae4bd2c3dd63e95faec3ebff5d6"
        "3ea9c2d63ec62fa2bdf118043e1884af3e9908193e5e321dbdfc70b2bdba99c5"
        "3e82738cbecc47aabefffd79bebddd22"),
    "t": ("3fb28234bd189c39bf824241bf88a63fbfacf809bfb96464bf851d583f99bf05"
        "bfb4f18a3ea64437bf748e28bf4f1c2cbfbeeafcbf27940b3f9f3d59bfdf1cc6"
        "bb5c1895bedc0e37bfd26edf3feeab713e12c7ae3f2038f7bee8ca323f803d73"
        "3f0833fa3f1f93e1be829e7bbfdacad0bf3ff92e3f2f1a363f69e316be2552e1"
        "3f051d43bf2ac4ea3ebc3d333e0893fc3f1d36673f71aedc3fc3c3d33eb06d3f"
        "3fc564c6be26aa91bf316259bf9decf2be133913be0f88dd3f79f7893f9ff787"
        "3f8d77b23fa527b1bec8e9583efe32783f7f0d7f3f3929c2bed25de9be9b8024"
        "3f596b3ebfaa3bb8bfd5533abf9e3847"),
    "u": ("bea3f493bff5d5443f9524813ec7b2cfbf9a9595bfb119453fc2a75bbedc9f95"
        "bf65822b3f92acdc3f4ae56f400c9378bf921bdf3e919626bfae2c103f34dde1"
        "bf05fbab3ce728c43f808844bfacfb4e3effa39fbe364cb83ec89fbd3f247cbd"
        "3f0c9f563f6bb22a3d38b66b3e9057b6bf6f5e713fd08b11c01bdbf1bfa5fe20"
        "3efab1c4be9845bc3f48cfb4bf53512ebeb74302be61eb25bfc862c03e35ce4f"
        "bf27a93dbdb47409bf827343bebfc6c73f0b2988bf78eeb3bf58ad6e3f1317e0"
        "3fc175473f226420bf3d1dc83e96417cbf6c0c883fbe78233f3911d7be66ea2c"
        "bff791963e7999a5bf2ba9c73f255519"),
}
_NORMAL_BIG_SHA256 = "06835d9ac7e4e9cbe12465976db0d3dee56550543a474d51c648a042820f770f"


def test_seeded_float_normals_match_tf_bits():
    import hashlib

    with tf.Graph().as_default():
        tf.set_random_seed(35)
        w = tf.get_variable("w", [12, 5],
                            initializer=tf.truncated_normal_initializer(stddev=0.3, seed=2))
        t = tf.truncated_normal([12, 5], seed=2)
        u = tf.random_normal([60], seed=1)
        big = tf.random_normal([20000], seed=7)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = {"w": s.run(w), "t": s.run(t), "u": s.run(u)}
            b = s.run(big)
    for k, want in _NORMAL_REF.items():
        _bits_equal(got[k], want)
    assert hashlib.sha256(b.astype("<f4").tobytes()).hexdigest() == _NORMAL_BIG_SHA256


def test_glibc_logf_and_sincosf_where_they_are_not_correctly_rounded():
    # inputs where glibc's results are not the exact values rounded (measured with glibc 2.36's
    # logf and sincosf, the functions TF 1.15's normal sampler calls)
    from tideflow.ops import glibc_float32

    x = _f32("3f7d27e63f2953e43f79a5c63f7d49663f523f723f51694c")
    _bits_equal(glibc_float32.logf(x), "bc370b4abed3a181bccdd7cabc2e93c3be499da6be4db2ba")
    v = _f32("408694563fadf2e64057a9e8409b450340abd6ee40050f4f409ca25b40b78eda"
                "3f0000003727c5ac4000000040b00000")
    sin, cos = glibc_float32.sincosf(v)
    _bits_equal(sin, "bf5fd2db3f7a473fbe679b4fbf7d80c2bf4a9d513f5fa3abbf7bc07bbf0526ea"
                    "3ef577443727c5ac3f68c7b7bf349e4a")
    _bits_equal(cos, "bef881df3e574957bf795db23e0eaca93f1c78bbbef92b933e39c60f3f5aa5a6"
                    "3f60a9403f800000bed511333f356b62")


# float32 MatMul with a vector side: TF 1.15 runs Eigen's matrix-vector products (not the
# GEMM): [6, 21] @ [21, 1] by 8-float lanes, [150, 3]^T @ [150, 1] and [1, 130] @ [130, 4] by
# column blocks of 16 (128 columns or more); then a nesterov-momentum linear regression whose
# losses (steps 0, 5, 10, 15) and weights are TF's to the bit
_GEMV_REF = {
    "rows": ("3e895298c0824f90bfe54f784092ad424041d510c01374de"),
    "cols": ("c11463d9c12ba5ccc1819fe8"),
    "vecmat": ("c17eeaf14022ee4cc035cbd3c19d13ec"),
    "losses": ("4161c0ad3f88edcf3f3dc1ff3ead99b7"),
    "w": ("3f940a2dc01b73723f052af64023283f"),
}


def test_matrix_vector_products_and_a_linear_regression_match_tf_bits():
    rs = np.random.RandomState(2720)
    a_rows = rs.randn(6, 21).astype(np.float32)
    x = rs.randn(21, 1).astype(np.float32)
    a_cols = rs.randn(150, 3).astype(np.float32)
    y = rs.randn(150, 1).astype(np.float32)
    b = rs.randn(130, 4).astype(np.float32)
    r = rs.randn(1, 130).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        _bits_equal(s.run(tf.matmul(a_rows, x)), _GEMV_REF["rows"])
        _bits_equal(s.run(tf.matmul(a_cols, y, transpose_a=True)), _GEMV_REF["cols"])
        _bits_equal(s.run(tf.matmul(r, b)), _GEMV_REF["vecmat"])
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        xs = rs.randn(32, 4).astype(np.float32)
        ys = (xs @ np.array([1., -2., .5, 3.], np.float32) + 0.3).reshape(-1, 1)
        w = tf.Variable(tf.random_normal([4, 1], stddev=0.1, seed=3))
        bias = tf.Variable(tf.zeros([1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(xs), w) + bias - ys))
        train = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            losses = [s.run([loss, train])[0] for _ in range(16)]
            _bits_equal(losses[::5], _GEMV_REF["losses"])
            _bits_equal(s.run(w), _GEMV_REF["w"])


def test_row_times_transposed_matrix_is_eigens_row_product():
    # [1, 21] @ [5, 21]^T: Eigen's row-major matrix-vector product (8-float lanes), as TF 1.15
    rs = np.random.RandomState(2721)
    x = rs.randn(1, 21).astype(np.float32)
    b = rs.randn(5, 21).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        _bits_equal(s.run(tf.matmul(x, b, transpose_b=True)),
                    "bfdb32e53fa30c7fbf0e0da43eaa00f0c02fa9f4"
                    "")


def test_odd_last_row_of_a_matrix_vector_product_takes_a_half_packet():
    # Eigen takes rows 8, 4 and 2 at a time; a last odd row adds 4 products as a half packet
    # before its scalar tail (TF 1.15's bits)
    rs = np.random.RandomState(2722)
    want = [("be6c3896c07ab348402a1f2b41063469c0a04382c087314541117624bea5b363"
             "bf892e1e"),
            ("4050c95abe48f0e63ff96a23c046d762c01c5795c00bf8473f353adf404698e1"
             "3fd3f645c00fea71be69d458c075d0a4c0944ac5403e00fa3f488730")]
    with tf.Graph().as_default(), tf.Session() as s:
        for (m, k), w in zip([(9, 22), (15, 7)], want):
            a = rs.randn(m, k).astype(np.float32)
            x = rs.randn(k, 1).astype(np.float32)
            _bits_equal(s.run(tf.matmul(a, x)), w)


def test_matmul_read_by_a_bias_add_takes_tfs_fused_gemm():
    # TF 1.15's grappler fuses MatMul + BiasAdd (_FusedMatMul): the GEMM's sequential FMAs even
    # for a column on the right, where the same MatMul fetched alone is Eigen's matrix-vector
    # product; both as TF printed them
    rs = np.random.RandomState(2723)
    x = rs.randn(12, 21).astype(np.float32)
    w = rs.randn(21, 1).astype(np.float32)
    with tf.Graph().as_default():
        xt = tf.placeholder(tf.float32, [None, 21])
        mm = tf.matmul(xt, tf.constant(w))
        ba = tf.nn.bias_add(mm, tf.constant([0.25]))
        with tf.Session() as s:
            _bits_equal(s.run(ba, {xt: x}), ("bf0fc4e6406e1e7dc0b259ccbf84349b403e5a1cbfa87babbf29f9fe3f9dcd84"
                                "c0055ea4c09e9ca2c0c7006bc0800376"))
            _bits_equal(s.run(mm, {xt: x}), ("bf4fc4e4405e1e7fc0ba59cdbfa4349a402e5a19bfc87badbf69fa023f7b9b09"
                                "c0155ea3c0a69ca3c0cf0069c0880377"))


def test_bias_add_grad_sums_rows_in_order_as_tf(restore_pool):
    # TF 1.15's BiasGrad (ReduceOuterDimensions): rows in order, where NumPy's sum of one long
    # column is pairwise (TF's values with a pool of 2 threads)
    rs = np.random.RandomState(2724)
    for shape, want in [((100, 1), "416fa961"), ((5000, 2), "43d696cc4315a14d")]:
        g = (rs.randn(*shape) * np.exp(rs.randn(*shape))).astype(np.float32)
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, shape)
            b = tf.Variable(np.zeros(shape[-1], np.float32))
            grad = tf.gradients(tf.nn.bias_add(x, b), b, g)[0]
            with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=2)) as s:
                s.run(tf.global_variables_initializer())
                _bits_equal(s.run(grad, {x: g}), want)
