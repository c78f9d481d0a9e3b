// Strided copy with conversion. The view is walked as rows of its last dimension; rows are
// split across threads (each thread owns distinct destination rows, so no races).
#include "opscope/convert.h"

#include <cstring>

#include "opscope/dispatch.h"
#include "opscope/parallel.h"
#include "opscope/widen.h"

namespace opscope {
namespace {

struct RowWalker {
    std::vector<int64_t> outerShape;  // all dims but the last
    std::vector<int64_t> srcStrides, dstStrides;
    // Element offsets of the start of outer row `row`.
    void offsets(int64_t row, int64_t* srcOff, int64_t* dstOff) const {
        int64_t s = 0, d = 0;
        for (std::size_t i = outerShape.size(); i-- > 0;) {
            const int64_t idx = row % outerShape[i];
            row /= outerShape[i];
            s += idx * srcStrides[i];
            d += idx * dstStrides[i];
        }
        *srcOff = s;
        *dstOff = d;
    }
};

template <class S, class D>
void copyTyped(const TensorView& src, const TensorView& dst) {
    const S* sp = static_cast<const S*>(src.first());
    D* dp = static_cast<D*>(dst.first());
    const int64_t n = src.numel();
    if (src.isContiguous() && dst.isContiguous()) {
        if constexpr (std::is_same_v<S, D>) {
            std::memcpy(dp, sp, static_cast<std::size_t>(n) * sizeof(S));
        } else if constexpr (std::is_same_v<D, float> && (std::is_same_v<S, half> || std::is_same_v<S, bfloat16>)) {
            parallelFor(0, n, 1 << 16, [&](int64_t b, int64_t e) { widenToFloat(sp + b, dp + b, e - b); });
        } else if constexpr (std::is_same_v<S, float> && (std::is_same_v<D, half> || std::is_same_v<D, bfloat16>)) {
            parallelFor(0, n, 1 << 16, [&](int64_t b, int64_t e) { narrowFromFloat(sp + b, dp + b, e - b); });
        } else {
            parallelFor(0, n, 1 << 16, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) dp[i] = convertValue<D>(sp[i]);
            });
        }
        return;
    }
    const auto r = static_cast<std::size_t>(src.rank());
    const int64_t inner = src.shape[r - 1];
    const int64_t sInner = src.strides[r - 1], dInner = dst.strides[r - 1];
    RowWalker w;
    for (std::size_t i = 0; i + 1 < r; ++i) {
        w.outerShape.push_back(src.shape[i]);
        w.srcStrides.push_back(src.strides[i]);
        w.dstStrides.push_back(dst.strides[i]);
    }
    const int64_t rows = n / inner;
    const int64_t grain = std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(inner, 1));
    parallelFor(0, rows, grain, [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
            int64_t so, dof;
            w.offsets(row, &so, &dof);
            const S* s = sp + so;
            D* d = dp + dof;
            for (int64_t i = 0; i < inner; ++i) d[i * dInner] = convertValue<D>(s[i * sInner]);
        }
    });
}

}  // namespace

void copyConvert(const TensorView& src, const TensorView& dst) {
    if (src.shape != dst.shape)
        fail(status::kInner, Msg() << "copy between different shapes " << shapeToString(src.shape) << " and "
                                   << shapeToString(dst.shape));
    if (src.numel() == 0) return;
    // byteRange() proves both views' highest element index and byte size fit (it throws
    // otherwise), so no element offset or pointer computed below can overflow.
    src.byteRange();
    dst.byteRange();
    if (src.rank() == 0) {
        TensorView s = src, d = dst;
        s.shape = d.shape = {1};
        s.strides = d.strides = {1};
        copyConvert(s, d);
        return;
    }
    dispatchAll(src.dtype, [&](auto stag) {
        using S = typename decltype(stag)::type;
        dispatchAll(dst.dtype, [&](auto dtag) {
            using D = typename decltype(dtag)::type;
            copyTyped<S, D>(src, dst);
        });
    });
}

void fillZero(const TensorView& dst) {
    if (dst.numel() == 0) return;
    if (dst.isContiguous()) {
        const TensorView::ByteRange r = dst.byteRange();  // checked: numel * elementSize fits
        std::memset(dst.first(), 0, r.end - r.begin);
        return;
    }
    // All supported dtypes have zero as all-zero bits: copy from a zero scalar broadcast.
    TensorView zero = dst;
    zero.strides.assign(dst.shape.size(), 0);
    static const double zeros[2] = {0.0, 0.0};
    zero.data = const_cast<double*>(zeros);
    zero.offset = 0;
    copyConvert(zero, dst);
}

}  // namespace opscope
