"""Object-detection programs (anchors, box coding, NMS, ROI crops, image ops) against TF 1.15:
each test pins what TF 1.15 printed for the same program."""
import numpy as np
import pytest

import tideflow as tf


def _names(g):
    return [op.name for op in g.get_operations()]


def test_meshgrid_multiplies_by_ones_as_tf115():
    # TF 1.15's meshgrid builds ones(sizes) (through _constant_if_small's np.prod, a Less and
    # a Pack) and one Mul per output; an anchor generator's op count depends on it.
    g = tf.Graph()
    with g.as_default():
        x, y = tf.meshgrid(tf.placeholder(tf.float32, [None]), tf.constant([1., 2.]))
        assert x.get_shape().as_list() == [2, None]
        assert _names(g)[-8:] == [
            'meshgrid/ones/mul', 'meshgrid/ones/Less/y',
            'meshgrid/ones/Less', 'meshgrid/ones/packed', 'meshgrid/ones/Const',
            'meshgrid/ones', 'meshgrid/mul', 'meshgrid/mul_1']
        with tf.Session() as sess:
            a, b = sess.run([x, y], {g.get_tensor_by_name('Placeholder:0'): [5., 6., 7.]})
        np.testing.assert_array_equal(a, [[5., 6., 7.], [5., 6., 7.]])
        np.testing.assert_array_equal(b, [[1., 1., 1.], [2., 2., 2.]])


def _nms_error(fetch, feed):
    with tf.Session() as sess:
        try:
            sess.run(fetch, feed)
        except tf.errors.InvalidArgumentError as e:
            return str(e).split('\n')[0]
    return None


def test_nms_kernel_checks_in_tf115_words_and_order():
    # TF 1.15's NMS kernels check max_output_size, the thresholds, sigma, then boxes and
    # scores, with the words printed below (shapes written without spaces, no op prefix)
    b, s = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    m, t, st = tf.placeholder(tf.int32), tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    sg, ov = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    v3 = tf.image.non_max_suppression(b, s, m, iou_threshold=t, score_threshold=st)
    v4 = tf.image.non_max_suppression_padded(b, s, m, iou_threshold=t, score_threshold=st)[0]
    v5 = tf.image.non_max_suppression_with_scores(b, s, m, iou_threshold=t, score_threshold=st,
                                                  soft_nms_sigma=sg)[0]
    wo = tf.image.non_max_suppression_overlaps(ov, s, m, overlap_threshold=t,
                                               score_threshold=st)
    boxes = np.random.RandomState(0).uniform(0, 1, (5, 4)).astype(np.float32)
    base = {b: boxes, s: np.arange(5.), m: 3, t: 0.5, st: 0.1, sg: 0., ov: np.eye(5)}
    cases = [
        ({b: boxes[:, :3], m: [3]}, [v3, v4, v5, wo], 'max_output_size must be 0-D, got shape [1]'),
        ({b: boxes[None]}, [v3, v4, v5], 'boxes must be 2-D[1,5,4]'),
        ({b: boxes[:, :3]}, [v3, v4, v5], 'boxes must have 4 columns'),
        ({s: np.zeros((5, 1)), b: boxes[:, :3]}, [v3], 'boxes must have 4 columns'),
        ({s: np.zeros((5, 1))}, [v3, v5, wo], 'scores must be 1-D[5,1]'),
        ({s: np.zeros(3)}, [v3, v4, v5, wo], 'scores has incompatible shape'),
        ({t: 1.5, st: [0.1]}, [v3, v4, v5], 'iou_threshold must be in [0, 1]'),
        ({t: [0.5]}, [v3, v4, v5], 'iou_threshold must be 0-D, got shape [1]'),
        ({t: [0.5]}, [wo], 'overlap_threshold must be 0-D, got shape [1]'),
        ({st: [[0.1]], ov: np.zeros(5)}, [v3, wo], 'score_threshold must be 0-D, got shape [1,1]'),
        ({sg: -1., b: boxes[:, :3]}, [v5], 'soft_nms_sigma_val must be >= 0'),
        ({sg: [0.]}, [v5], 'soft_nms_sigma must be 0-D, got shape [1]'),
        ({ov: np.zeros((5, 4))}, [wo], 'overlaps must be square[5,4]'),
        ({ov: np.zeros(5)}, [wo], 'overlaps must be 2-D[5]'),
    ]
    for change, fetches, words in cases:
        feed = {**base, **change}
        for f in fetches:
            assert _nms_error(f, feed) == words, (f.name, words)
    # TF compares the selection's size with max_output_size unsigned: -1 keeps them all
    with tf.Session() as sess:
        for f in (v3, v5, wo):
            np.testing.assert_array_equal(sess.run(f, {**base, m: -1}), [4, 3, 2, 1])


def test_soft_nms_scores_rounded_as_tf115():
    # TF 1.15 weights a suppressed score by expf(scale * iou * iou) in float32; TF printed
    # 0.9433541893959045 for the second score (a float64-weighted product gave one ulp less)
    rng = np.random.RandomState(1)
    yx, hw = rng.uniform(0, 50, (40, 2)), rng.uniform(5, 30, (40, 2))
    boxes = np.concatenate([yx, yx + hw], 1).astype(np.float32)
    scores = rng.uniform(0, 1, 40).astype(np.float32)
    sel, sc = tf.image.non_max_suppression_with_scores(
        boxes, scores, 30, iou_threshold=0.6, score_threshold=0.05, soft_nms_sigma=0.3)
    with tf.Session() as sess:
        i, v = sess.run([sel, sc])
    assert i[:3].tolist() == [11, 39, 35]
    assert v[:3].tolist() == [0.9886161684989929, 0.9433541893959045, 0.931972086429596]


def test_roi_crops_bilinear_resizes_and_their_gradients_bit_for_bit():
    # TF 1.15's CropAndResize places samples in float32 and lerps in float32; its gradients
    # add float32 shares one sample at a time; ResizeBilinear lerps along x then y in float32.
    # Values printed by TF 1.15 for this program (float64 math was a few ulps off).
    feat = tf.constant(np.random.RandomState(4).randn(1, 9, 11, 2).astype(np.float32))
    boxes = tf.constant([[0.1, 0.2, 0.7, 0.9], [0.5, 0.5, 1.2, 1.1]])
    crops = tf.image.crop_and_resize(feat, boxes, [0, 0], [4, 5])
    gi, gb = tf.gradients(tf.reduce_sum(tf.square(crops)), [feat, boxes])
    r = tf.image.resize_bilinear(feat, [17, 20], half_pixel_centers=True)
    r2 = tf.image.resize_bilinear(feat, [5, 7], align_corners=True)
    with tf.Session() as sess:
        c, a, b, rr, rr2 = sess.run([crops, gi, gb, r, r2])
    assert c[0, 1, :, 0].tolist() == [0.3476276397705078, 0.511448860168457, -0.6644400358200073,
                                      0.03377443552017212, -0.38963329792022705]
    assert b.tolist() == [
        [142.31741333007812, -18.340429306030273, 20.86036491394043, -11.357223510742188],
        [43.16555404663086, -32.910160064697266, 21.97065544128418, -4.644071578979492]]
    assert a[0, 3, :, 1].tolist() == [
        0.0, 0.0, 0.47918474674224854, -0.05193852633237839, -0.15581557154655457,
        0.09500516951084137, 0.09500516951084137, -0.01870507374405861, -0.006235024891793728,
        0.29568204283714294, 0.0]
    assert rr[0, 5, :6, 0].tolist() == [0.4468051791191101, 0.26488086581230164,
                                        -0.04299098253250122, 0.0895935595035553,
                                        0.3517240881919861, 0.7139562368392944]
    assert rr2[0, 1, :, 1].tolist() == [0.802086591720581, 0.9583534002304077,
                                        -1.2152748107910156, 0.17941071093082428,
                                        0.38569217920303345, -0.00919225811958313,
                                        -0.9617767930030823]


def _graph_error(fn):
    try:
        fn()
    except ValueError as e:
        return str(e).split(' for ')[0]
    return None


def test_crop_and_resize_checks_in_tf115_words():
    # run time: TF 1.15's kernel checks, in its order and words; no boxes and no indices pass
    im, bx = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    bi, cs = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    crops = tf.image.crop_and_resize(im, bx, bi, cs)
    img = np.ones((2, 4, 5, 3), np.float32)
    boxes = np.array([[0, 0, 1, 1.], [0.2, 0.1, 0.5, 0.5]], np.float32)
    base = {im: img, bx: boxes, bi: [0, 1], cs: [3, 3]}
    cases = [({im: img[0], bx: boxes[:, :3]}, 'input image must be 4-D[4,5,3]'),
             ({im: img[:, :0]}, 'image dimensions must be positive'),
             ({bx: boxes[0]}, 'boxes must be 2-D[4]'),
             ({bx: boxes[:, :3], bi: [[0]]}, 'boxes must have 4 columns'),
             ({bi: [[0, 1]]}, 'box_index must be 1-D[1,2]'),
             ({bi: [0]}, 'box_index has incompatible shape'),
             ({cs: [[3, 3]]}, 'crop_size must be 1-D[1,2]'),
             ({cs: [3]}, 'crop_size must have two elements[1]'),
             ({bi: [0, 5], cs: [0, 0]}, 'crop dimensions must be positive')]
    with tf.Session() as sess:
        for change, words in cases:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(crops, {**base, **change})
            assert str(e.value).split('\n')[0] == words
        with pytest.raises(tf.errors.OutOfRangeError) as e:
            sess.run(crops, {**base, bi: [-1, 0]})
        assert str(e.value).split('\n')[0] == 'box_index has values outside [0, batch_size)'
        empty = sess.run(crops, {**base, bx: np.zeros((0, 3)), bi: np.zeros(0)})
        assert empty.shape == (0, 3, 3, 3)
    # graph construction: the shape function's checks; a negative size is an unknown dim
    z, zi = tf.zeros([1, 4, 4, 1]), tf.zeros([3], tf.int32)
    car = tf.image.crop_and_resize
    assert _graph_error(lambda: car(z, tf.zeros([3, 4]), tf.zeros([3, 1], tf.int32), [2, 2])) \
        == 'Shape must be rank 1 but is rank 2'
    assert _graph_error(lambda: car(z, tf.zeros([3, 5]), tf.zeros([2], tf.int32), [2, 2])) \
        == 'Dimensions must be equal, but are 3 and 2'
    assert _graph_error(lambda: car(z, tf.zeros([3, 5]), zi, [2, 2])) \
        == 'Dimension must be 4 but is 5'
    assert _graph_error(lambda: car(z, tf.zeros([3, 4]), zi, [[2, 2]])) \
        == 'Shape must be rank 1 but is rank 2'
    assert _graph_error(lambda: car(z, tf.zeros([3, 4]), zi, tf.placeholder(tf.int32, [3]))) \
        == 'Dimension must be 2 but is 3'
    assert car(tf.zeros([1, 4, 4, 1], tf.uint8), tf.zeros([3, 4]), zi,
               [2, -1]).get_shape().as_list() == [3, 2, None, 1]


def test_reshape_by_own_batch_size_and_minus_one_is_unknown():
    # an SSD head's tf.reshape(logits, [tf.shape(logits)[0], -1, num_classes]): TF 1.15's
    # shape function sees two unknowns in the target (the batch size and -1) and infers neither
    logits = tf.layers.conv2d(tf.placeholder(tf.float32, [None, 8, 8, 3]), 6, 3, padding='same')
    assert tf.reshape(logits, [tf.shape(logits)[0], -1, 3]).get_shape().as_list() == [
        None, None, 3]
    assert tf.reshape(logits, [tf.shape(logits)[0], -1]).get_shape().as_list() == [None, None]
    assert tf.reshape(logits, [-1, 8 * 8 * 6]).get_shape().as_list() == [None, 384]


def test_extract_glimpse_batch_from_offsets_as_tf115():
    # TF 1.15's shape function merges the image's batch with the offsets' and checks ranks
    im = tf.placeholder(tf.float32, [None, 10, 10, 3])
    assert tf.image.extract_glimpse(im, [4, 5], tf.zeros([3, 2])).get_shape().as_list() == [
        3, 4, 5, 3]
    assert _graph_error(lambda: tf.image.extract_glimpse(
        tf.zeros([2, 10, 10, 1]), [4, 5], tf.zeros([3, 2]))) == \
        'Dimensions must be equal, but are 2 and 3'
    assert _graph_error(lambda: tf.image.extract_glimpse(
        tf.zeros([2, 10, 10, 1]), [4, 5], tf.zeros([2]))) == 'Shape must be rank 2 but is rank 1'
    assert _graph_error(lambda: tf.image.extract_glimpse(
        tf.zeros([2, 10, 10, 1]), [4, 5, 6], tf.zeros([2, 2]))) == 'Dimension must be 2 but is 3'


def test_hsv_hue_saturation_contrast_in_tf115_float_arithmetic():
    # TF 1.15's RGBToHSV (Eigen in T), AdjustHue/AdjustSaturation (per-pixel float code) and
    # AdjustContrastv2 (float means by folding the pixels in half) printed these rows
    # (float64 arithmetic rounded once was an ulp off in a third of the values)
    x = tf.constant(np.random.RandomState(12).rand(1, 7, 5, 3).astype(np.float32))
    outs = [tf.image.rgb_to_hsv(x), tf.image.adjust_hue(x, -0.2),
            tf.image.adjust_saturation(x, 1.6), tf.image.adjust_contrast(x, 1.7)]
    with tf.Session() as sess:
        got = [v[0, 3].ravel().tolist() for v in sess.run(outs)]
    want = [
        [0.23953238129615784, 0.19308200478553772, 0.4631488621234894, 0.9809823036193848,
         0.9244518876075745, 0.4655081033706665, 0.14388330280780792, 0.9619017243385315,
         0.7325206995010376, 0.11274219304323196, 0.8167039155960083, 0.30017006397247314,
         0.1291683167219162, 0.9078468680381775, 0.5232460498809814],
        [0.4631488621234894, 0.39493441581726074, 0.3737231492996216, 0.330335795879364,
         0.03516826033592224, 0.4655081033706665, 0.7325206995010376, 0.02790778875350952,
         0.2651512622833252, 0.30017006397247314, 0.05501999333500862, 0.18336762487888336,
         0.5232460498809814, 0.0482187494635582, 0.25010067224502563],
        [0.4005945920944214, 0.4631488621234894, 0.32006773352622986, 0.4655081033706665, 0.0,
         0.05311734974384308, 0.7325206995010376, 0.6323850750923157, 0.0, 0.30017006397247314,
         0.20305098593235016, 0.0, 0.5232460498809814, 0.4055209159851074, 0.0],
        [0.3234911262989044, 0.4279942810535431, 0.32294273376464844, 0.3939657211303711,
         -0.29957276582717896, -0.16912314295768738, 0.8478871583938599, 0.7221812605857849,
         -0.264943391084671, 0.11289107799530029, 0.0160905122756958, -0.2188526690006256,
         0.49212026596069336, 0.348469614982605, -0.23041477799415588],
    ]
    assert got == want
    # TF 1.15's adjust ops take half and float only
    with pytest.raises(TypeError, match="not in list of allowed values: float16, float32"):
        tf.raw_ops.AdjustContrastv2(images=tf.zeros([2, 2, 3], tf.float64), contrast_factor=1.5)


def test_draw_boxes_top_k_and_pad_checks_in_tf115_words():
    # DrawBoundingBoxes' shape function checks the depth and the boxes' [batch, n, 4]; its
    # kernel takes a longer box row and checks the rank and batch with TF's words
    img3 = tf.zeros([1, 8, 8, 3])
    assert _graph_error(lambda: tf.image.draw_bounding_boxes(img3, tf.zeros([1, 1, 5]))) == \
        'Dimension must be 4 but is 5'
    assert _graph_error(lambda: tf.image.draw_bounding_boxes(img3, tf.zeros([1, 4]))) == \
        'Shape must be rank 3 but is rank 2'
    assert _graph_error(lambda: tf.image.draw_bounding_boxes(
        tf.zeros([1, 8, 8, 2]), tf.zeros([1, 1, 4]))) == \
        'Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)'
    im, bx = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    drawn = tf.image.draw_bounding_boxes(im, bx)
    assert drawn.get_shape().ndims is None
    pad_in, paddings = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    padded = tf.pad(pad_in, paddings)
    with tf.Session() as sess:
        assert sess.run(drawn, {im: np.zeros((1, 4, 4, 3)), bx: np.zeros((1, 1, 5))}).shape == (
            1, 4, 4, 3)
        for boxes, words in ((np.zeros((2, 1, 4)), 'The batch sizes should be the same'),
                             (np.zeros((1, 4)), 'The rank of the boxes tensor should be 3')):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(drawn, {im: np.zeros((1, 4, 4, 3)), bx: boxes})
            assert str(e.value).split('\n')[0] == words
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(padded, {pad_in: np.zeros((3, 2)), paddings: [[0, 1], [-2, 0]]})
        assert str(e.value).split('\n')[0] == 'Paddings must be non-negative: -2 0'
    assert _graph_error(lambda: tf.nn.top_k(tf.constant(1.0), k=1)) == \
        'Shape must be at least rank 1 but is rank 0'
    assert _graph_error(lambda: tf.nn.top_k(tf.zeros([3]), k=[1])) == \
        'Input must be scalar but has rank 1'


def test_int_attrs_coerced_as_tf115_make_int():
    # an SSD crop loop passing its loop counter as seed2: TF 1.15's _MakeInt raises TypeError
    # naming the tensor; a float is truncated and a string refused
    def sdbb(seed2):
        return tf.image.sample_distorted_bounding_box(
            [8, 8, 3], [[[0., 0., 1., 1.]]], seed=1, seed2=seed2)[0].op.get_attr('seed2')
    with pytest.raises(TypeError, match=r"^Expected int for argument 'seed2' not "
                       r"<tf.Tensor 'Const(_\d+)?:0' shape=\(\) dtype=int32>\.$"):
        sdbb(tf.constant(1))
    assert sdbb(1.5) == 1
    with pytest.raises(TypeError, match=r"^Expected int for argument 'seed2' not '3'\.$"):
        sdbb('3')


def test_keras_detection_head_reshape_softmax_and_lossless_output():
    # TF 1.15's Keras: Reshape((-1, k)) leaves the anchors' count unknown, softmax of a rank-3
    # tensor is exp / sum in ops (a matrix takes the Softmax op over its last axis whatever
    # `axis` says), and fit takes targets only for the outputs that have a loss
    K = tf.keras
    inp = K.layers.Input(shape=(4, 4, 3))
    conv = K.layers.Conv2D(6, 1, kernel_initializer=K.initializers.glorot_uniform(seed=1))(inp)
    cls = K.layers.Activation('softmax', name='cls')(K.layers.Reshape((-1, 2))(conv))
    aux = K.layers.Lambda(lambda t: t * 2.0, name='aux')(conv)
    assert cls.get_shape().as_list() == [None, None, 2]
    assert cls.op.type == 'RealDiv' and cls.name == 'cls/truediv:0'
    m = tf.constant([[1., 2., 3.], [1., 1., 5.]])
    with tf.Session() as sess:
        got = sess.run(K.activations.softmax(m, axis=0))
    e = np.exp(np.array([[1., 2., 3.], [1., 1., 5.]]))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=1e-6)
    model = K.models.Model(inp, [cls, aux])
    model.compile(optimizer=K.optimizers.SGD(0.01), loss=['categorical_crossentropy', None])
    x = np.random.RandomState(0).rand(2, 4, 4, 3).astype(np.float32)
    y = np.eye(2, dtype=np.float32)[np.random.RandomState(1).randint(0, 2, (2, 48))]
    assert list(model.fit(x, [y], epochs=1, verbose=0).history) == ['loss', 'cls_loss']
    assert list(model.fit(x, y, epochs=1, verbose=0).history) == ['loss', 'cls_loss']
    with pytest.raises(ValueError, match="Expected to see 1 array"):
        model.fit(x, [y, y], epochs=1, verbose=0)


def test_resize_bilinear_gradient_bit_for_bit():
    # TF 1.15's ResizeBilinearGrad adds each output pixel's four float32 shares into the image
    # one pixel at a time; this row is TF 1.15's (a float64 product was an ulp off)
    rng = np.random.RandomState(23)
    x = tf.constant(rng.rand(1, 7, 9, 2).astype(np.float32))
    y = tf.image.resize_bilinear(x, [13, 20], half_pixel_centers=True)
    w = tf.constant(rng.randn(1, 13, 20, 2).astype(np.float32))
    g = tf.gradients(tf.reduce_sum(y * w), x)[0]
    with tf.Session() as sess:
        got = sess.run(g)[0, 3, :, 0].tolist()
    assert got == [-1.439433217048645, -2.353442430496216, -2.737149715423584,
                   0.7379100322723389, -1.0698297023773193, -1.2670536041259766,
                   -0.9882799983024597, 2.8021726608276367, 2.182300567626953]


def test_resize_area_bit_for_bit():
    # TF 1.15's ResizeArea sums in float along each input row, then the rows times their
    # shares, then times 1 / (scales' product); this row is TF 1.15's (float64 was an ulp off)
    x = tf.constant(np.random.RandomState(25).rand(1, 9, 14, 2).astype(np.float32))
    with tf.Session() as sess:
        got = sess.run(tf.image.resize_area(x, [4, 6]))[0, 1, :, 0].tolist()
        # a zero scale (align_corners from one pixel) is C's 1 / 0: NaN, as TF's
        nan = sess.run(tf.image.resize_area(tf.ones([1, 1, 1, 1]), [3, 3], align_corners=True))
    assert got == [0.36062315106391907, 0.35625290870666504, 0.3607065975666046,
                   0.48745229840278625, 0.47050854563713074, 0.5481736660003662]
    assert np.isnan(nan).all()


def test_resize_bicubic_bit_for_bit():
    # TF 1.15's ResizeBicubic: float32 table weights (x + 1 rounded to float when the table
    # is made, offsets by lrintf), columns along y then along x in float; rows TF 1.15 printed
    x = tf.constant(np.random.RandomState(26).rand(1, 7, 9, 2).astype(np.float32))
    with tf.Session() as sess:
        keys = sess.run(tf.image.resize_bicubic(x, [13, 20], half_pixel_centers=True))
        legacy = sess.run(tf.image.resize_bicubic(x, [5, 6]))
    assert keys[0, 4, :6, 1].tolist() == [0.09420017898082733, 0.15135958790779114,
                                          0.2733924388885498, 0.44069820642471313,
                                          0.6818475723266602, 0.8314734101295471]
    assert legacy[0, 2, :, 0].tolist() == [0.8431786894798279, 0.10075657814741135,
                                           0.057562366127967834, 0.71040278673172,
                                           0.3883993327617645, 0.6274440288543701]


def test_combined_nms_and_overlaps_shape_functions_as_tf115():
    # TF 1.15's CombinedNonMaxSuppression shape function: ranks, batch and anchors merged, the
    # sizes' checks; its output size multiplies the values with -1 for unknown ones
    P = tf.placeholder
    cnms = tf.image.combined_non_max_suppression
    assert _graph_error(lambda: cnms(tf.zeros([2, 5, 4]), tf.zeros([2, 5, 3]), 2, 4)) == \
        'Shape must be rank 4 but is rank 3'
    assert _graph_error(lambda: cnms(tf.zeros([2, 5, 1, 4]), tf.zeros([3, 5, 3]), 2, 4)) == \
        'Dimensions must be equal, but are 2 and 3'
    assert _graph_error(lambda: cnms(tf.zeros([2, 5, 2, 4]), tf.zeros([2, 5, 3]), 2, 4)) == (
        'third dimension of boxes must be either 1 or equal to the third dimension of scores')
    assert _graph_error(lambda: cnms(P(tf.float32, [2, 5, 1, 4]), P(tf.float32, [2, 5, 3]), 0,
                                     4, pad_per_class=True)) == (
        'max_output_size_per_class must be > 0 if pad_per_class is set to true ')
    odd = cnms(P(tf.float32, [2, 5, 1, 4]), P(tf.float32, [2, 5, None]), P(tf.int32), 4,
               pad_per_class=True)
    assert odd.nmsed_boxes.get_shape().as_list() == [2, 1, 4]
    with pytest.raises(ValueError, match=r'^Dimension -2 must be >= 0$'):
        cnms(P(tf.float32, [2, 5, 1, 4]), P(tf.float32, [2, 5, None]), 2, 4, pad_per_class=True)
    assert _graph_error(lambda: tf.image.non_max_suppression_overlaps(
        tf.zeros([5, 4]), tf.zeros([5]), 3)) == 'Dimensions must be equal, but are 5 and 4'
    padded = tf.image.non_max_suppression_padded(tf.zeros([5, 4]), tf.zeros([5]), 3)
    assert type(padded).__name__ == 'NonMaxSuppressionV4' and padded.valid_outputs.dtype == \
        tf.int32
    # run time: the kernel's checks and words
    b, s = P(tf.float32), P(tf.float32)
    out = cnms(b, s, 2, P(tf.int32))
    boxes = np.zeros((2, 5, 1, 4), np.float32)
    scores = np.zeros((2, 5, 3), np.float32)
    with tf.Session() as sess:
        for feed, words in (({b: boxes, s: scores[:1], 'total': 4},
                             'boxes and scores must have same batch size'),
                            ({b: boxes, s: scores, 'total': 0}, 'max_total_size must be > 0'),
                            ({b: np.zeros((2, 5, 2, 4)), s: scores, 'total': 4},
                             'third dimension of boxes must be either 1 or num classes'),
                            ({b: boxes, s: scores[:, :4], 'total': 4},
                             'scores has incompatible shape')):
            total = feed.pop('total')
            feed[out[0].op.inputs[3]] = total
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(out, feed)
            assert str(e.value).split('\n')[0] == words
